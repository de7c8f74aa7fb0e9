"""The table daemon: builds everything from the config, runs the loop, and talks to systemd.

One job per module: ``app`` (the Daemon and its main loop), ``drivers`` (devices from the
config), ``camera`` (frames to proposed readings), ``navigator`` (buttons to prompt choices),
``display`` (the OLED thread), ``status`` (device health), ``seats`` (bots at the table) and
``demo`` (the demo's bots and the acknowledgement printer).

A driver that fails never stops the game: the failure is logged, shown on the remaining outputs
(the OLED, the web page, systemd's STATUS=) and retried with backoff; without a camera the phones
enter the dice by hand.
"""

from .app import Daemon, lan_ip
from .camera import CameraLoop, Settled, proof_jpeg, to_table_reading
from .display import DisplayController, Screen, result_text
from .drivers import Drivers, build_drivers, mock_buttons, throw_into_tray
from .navigator import Navigator
from .seats import BotSeats
from .status import Backoff, DeviceStatus, HardwareStatus

__all__ = [
    "Backoff",
    "BotSeats",
    "CameraLoop",
    "Daemon",
    "DeviceStatus",
    "DisplayController",
    "Drivers",
    "HardwareStatus",
    "Navigator",
    "Screen",
    "Settled",
    "build_drivers",
    "lan_ip",
    "mock_buttons",
    "proof_jpeg",
    "result_text",
    "throw_into_tray",
    "to_table_reading",
]
