"""What a die's confidence means to the table: one bar, shared by every reader that acts on it."""

SURE = 0.6
"""A die read at least this sure is taken as read. Below it the table asks a person
(``reader.Detection.uncertain``), so the readers spend more on such a die: a set's reading is
merged with the networks' (``set_reader.SetReader.read_own``), a network reading is read again
with the set's templates (``network_fuel.fuel_faces``), and a die that only a weak die-map peak
found is dropped (``bodies.WEAK_PEAK``)."""
