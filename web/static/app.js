// MLEM table companion: the phone pages. Plain JS, no build step, no libraries.
// Every page reads the JSON API; the table page follows /api/stream (Server-Sent Events).
// Names typed by players are only ever set as textContent, never as HTML.
"use strict";

const CATALOG = JSON.parse(document.getElementById("i18n").textContent);
const FACES = ["1", "2", "3", "4", "fuel"];
const me = { paired: false, csrf: null, device: null, missions: null };

function t(key, values) {
  let text = CATALOG[key] || key;
  for (const [k, v] of Object.entries(values || {})) text = text.replace(`{${k}}`, v);
  return text;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function $(id) { return document.getElementById(id); }
function show(node, visible) { node.hidden = !visible; }
function replace(node, ...children) {
  node.replaceChildren(...children.flat(2).filter((c) => c !== null && c !== undefined));
}

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 4000);
}

async function api(method, path, body) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (me.csrf) headers["X-CSRF-Token"] = me.csrf;
  const response = await fetch(path, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) toast((data && data.error) || `${response.status}`);
  return { ok: response.ok, status: response.status, data };
}

async function loadMe() {
  const { data } = await api("GET", "/api/me");
  Object.assign(me, data || {});
  const badge = $("me-badge");
  if (me.paired && me.device) {
    badge.textContent = (me.device.is_host ? "★ " : "") + me.device.name;
    badge.title = me.device.is_host ? t("join.host") : t("join.paired_title");
  } else {
    badge.textContent = t("join.not_paired");
  }
}

function chip(seatInfo) {
  if (!seatInfo) return el("span", { class: "chip", text: "?" });
  return el("span", { class: `chip c-${seatInfo.colour}`, title: seatInfo.name },
    el("span", { class: "sym", "aria-hidden": "true", text: seatInfo.symbol }),
    el("span", { text: seatInfo.name }));
}

function faceLabel(face) { return face === "fuel" ? t("dice.fuel") : face; }
function pct(p) { return `${(100 * p).toFixed(p < 0.1 && p > 0 ? 1 : 0)}%`; }

// ------------------------------------------------------------------ the table page

const table = {
  view: null,
  prompt: null,      // personalised prompt from /api/actions
  mayAct: false,
  picked: [],
  correcting: false,
  events: [],
  lastVersion: -1,
};

function seatOf(view, seat) { return (view.seats || [])[seat]; }

async function refreshPrompt(view) {
  if (!view.game_id) { table.prompt = null; table.mayAct = false; return; }
  const { data } = await api("GET", "/api/actions");
  if (data && data.version === view.version) {
    table.prompt = data.prompt;
    table.mayAct = data.may_act;
  } else {
    table.prompt = view.prompt;
    table.mayAct = false;
  }
  const missionsOn = view.setup && view.setup.variants.includes("missions");
  if (me.paired && missionsOn) await loadMe();
}

async function onView(view) {
  table.view = view;
  if (view.version !== table.lastVersion) {
    for (const event of view.events || []) table.events.unshift(event.text);
    table.events = table.events.slice(0, 30);
    table.lastVersion = view.version;
  }
  await refreshPrompt(view);
  if (table.view === view) {
    renderTable(view);
    document.body.dataset.version = String(view.version);  // tests wait on it
  }
}

function renderTable(view) {
  const state = view.state;
  show($("no-game"), !state);
  show($("board-area"), !!state);
  show($("prompt"), !!state && view.prompt && view.prompt.kind !== "game_over");
  show($("final"), !!state && state.phase === "game_over");
  const oled = $("oled");
  if (oled) oled.src = `/api/oled.png?v=${view.version}`;
  renderHardware(view);
  if (!state) { show($("seat-claim"), false); show($("missions"), false); return; }
  renderPrompt(view);
  renderSeatClaim(view);
  renderMissions(view);
  renderStatus(view);
  renderCrew(view);
  renderOdds(view);
  renderTrack(view);
  renderPlanets(view);
  renderGoals(view);
  replace($("scores"), scoreTable(view, false));
  replace($("events"), table.events.map((text) => el("li", { text })));
  if (state.phase === "game_over") renderFinal(view);
}

const HARDWARE_DOWN = {
  camera: "hardware.camera_down", display: "hardware.display_down", buttons: "hardware.buttons_down",
};

function renderHardware(view) {
  const down = Object.entries(view.hardware || {}).filter(([, device]) => !device.ok);
  const lines = down.map(([name]) => HARDWARE_DOWN[name]
    ? t(HARDWARE_DOWN[name]) : t("hardware.device_down", { device: name }));
  $("hardware-status").textContent = lines.join(" · ");
  show($("hardware-status"), lines.length > 0);
}

// The prompt in the page's language: the table sends a catalog key with its values next to the
// English text, which stays the fallback for a key this page does not know.
function targetText(target) {
  return t(`target.${target.body}`, { id: target.id, points: target.points });
}

function diceText(faces) {
  const counts = new Map();
  for (const face of faces) counts.set(face, (counts.get(face) || 0) + 1);
  return [...counts].map(([face, n]) => (n === 1 ? faceLabel(face) : `${faceLabel(face)} ×${n}`));
}

function moveText(p) {
  const parts = diceText(p.dice);
  for (const name of p.dice1) parts.push(t("option.dice_one", { name }));
  if (p.ufo.length) parts.push(t("option.ufo", { faces: p.ufo.map(faceLabel).join("+") }));
  const where = p.deep_space ? t("track.deep") : t("option.space", { space: p.destination });
  return t(p.keep ? "option.move_keep" : "option.move", { dice: parts.join(" + "), where });
}

const OPTION_TEXT = {
  "option.move": moveText,
  "option.place": (p) => t(`kind.${p.kind}`),
  "option.land": (p) => t("option.land", { target: targetText(p.target) }),
};

const TITLE_VALUES = {
  "ask.game_over": (p) => ({ winners: p.winners.map((w) => `${w.player} ${w.score}`).join(" & ") }),
  "ask.draw": (p) => ({ phase: t(`phase.${p.phase}`) }),
  "ask.choose": (p) => ({ player: p.player, roll: p.roll.map(faceLabel).join(" ") }),
  "ask.land_or_stay": (p) => ({ player: p.player, targets: p.targets.map(targetText).join(t("ask.or")) }),
  "ask.confirm_roll": (p) => ({ ...p, faces: p.faces.map(faceLabel).join(" ") }),
  "ask.confirm_roll_unclear": (p) => ({ ...p, faces: p.faces.map(faceLabel).join(" ") }),
};

function known(key) { return !!key && Object.prototype.hasOwnProperty.call(CATALOG, key); }

function promptTitle(prompt) {
  if (!known(prompt.key)) return prompt.title;
  try {
    const values = TITLE_VALUES[prompt.key];
    return t(prompt.key, values ? values(prompt.params || {}) : prompt.params);
  } catch (e) { return prompt.title; }
}

function optionText(option) {
  if (!known(option.key)) return option.label;
  try {
    const special = OPTION_TEXT[option.key];
    return special ? special(option.params || {}) : t(option.key, option.params);
  } catch (e) { return option.label; }
}

function renderPrompt(view) {
  const prompt = table.prompt || view.prompt;
  if (!prompt) return;
  const seat = prompt.seat === null ? null : seatOf(view, prompt.seat);
  replace($("prompt-seat"), seat ? [chip(seat), seat.bot ? el("span", { class: "badge", text: t("seat.bot") }) : null] : []);
  $("prompt-title").textContent = promptTitle(prompt);
  const canAct = me.paired && table.mayAct;
  const rolling = prompt.kind === "roll";
  const options = canAct ? prompt.options : [];
  replace($("options"), options.map((option) => el("button", {
    type: "button", class: "option", "data-action": option.action,
    onclick: () => submit(option.action),
  }, optionText(option))));
  const wait = $("prompt-wait");
  show(wait, me.paired && !canAct && !rolling);
  wait.textContent = seat ? t("prompt.waiting_for", { name: seat.name }) : t("prompt.waiting");
  show($("pair-hint"), !me.paired);
  show($("draw"), canAct && prompt.kind === "draw" || canAct && view.state.phase === "deal_missions");
  $("undo").disabled = !me.paired || !view.can_undo;
  $("redo").disabled = !me.paired || !view.can_redo;
  $("correct").disabled = !me.paired || !view.last_roll;
  for (const id of ["undo", "redo", "correct"]) show($(id), me.paired);
  const entering = me.paired && (rolling || table.correcting);
  show($("dice-entry"), entering);
  if (entering) renderDiceEntry(view);
}

function diceTarget(view) {
  if (table.correcting && view.last_roll) return view.last_roll.faces.length;
  return view.state.available;
}

function renderDiceEntry(view) {
  const target = diceTarget(view);
  $("dice-entry-label").textContent = table.correcting ? t("dice.correct_label") : t("dice.enter_label");
  $("dice-count").textContent = `${table.picked.length} / ${target}`;
  const faces = $("face-buttons");
  if (!faces.childElementCount) {  // built once: a tap must not replace the button it hits
    faces.append(...FACES.map((face) => el("button", {
      type: "button", class: `face face-${face}`, "data-face": face,
      "aria-label": t("dice.add", { face: faceLabel(face) }),
      onclick: () => {
        if (table.picked.length < diceTarget(table.view)) table.picked.push(face);
        renderDiceEntry(table.view);
      },
    }, faceLabel(face))));
  }
  const sorted = [...table.picked].sort((a, b) => FACES.indexOf(a) - FACES.indexOf(b));
  replace($("dice-picked"), sorted.map((face) => el("span", { class: `die face-${face}`, text: faceLabel(face) })));
  $("dice-submit").disabled = table.picked.length !== target;
}

async function submit(action) {
  const view = table.view;
  for (const button of document.querySelectorAll("#options button")) button.disabled = true;
  await api("POST", "/api/actions", { action, version: view.version });
}

function renderSeatClaim(view) {
  const mine = me.device && me.device.seat;
  const open = me.paired && (mine === null || mine === undefined) && view.state.phase !== "game_over";
  show($("seat-claim"), open);
  if (!open) return;
  replace($("seat-buttons"), view.seats.filter((s) => !s.bot && !s.claimed_by).map((s) =>
    el("button", { type: "button", class: "option", onclick: async () => {
      const result = await api("POST", "/api/seat", { seat: s.seat });
      if (result.ok) { await loadMe(); renderTable(table.view); }
    } }, t("seat.play_as"), " ", chip(s))));
}

function renderMissions(view) {
  const list = me.missions;
  show($("missions"), !!(list && list.length));
  if (!list) return;
  // numbered by slot: the table's screen names them only as "Mission 1", "Mission 2", ...
  replace($("mission-list"), list.map((m) => el("li", { text: `${m.slot}. ${m.target} (${m.id})` })));
}

function renderStatus(view) {
  const state = view.state;
  $("expedition").textContent = state.expedition;
  $("space").textContent = state.space;
  replace($("dice"),
    Array.from({ length: state.available }, () => el("span", { class: "pip on", title: t("status.available") })),
    Array.from({ length: state.removed }, () => el("span", { class: "pip off", title: t("status.spent") })),
    el("span", { class: "muted", text: ` ${t("status.dice_text", { available: state.available, removed: state.removed })}` }));
  replace($("crash-track"),
    Array.from({ length: state.crash_track_length }, (_, i) =>
      el("span", { class: i < state.crash_count ? "crash on" : "crash" })),
    el("span", { text: ` ${state.crash_count}/${state.crash_track_length}` }));
  const last = view.last_roll;
  replace($("last-roll"), last ? last.faces.map((f) => el("span", { class: `die face-${f}`, text: faceLabel(f) })) : [t("status.none")]);
  if (view.reading) {
    $("last-roll").append(el("span", { class: "badge", text: t("status.reading", { faces: view.reading.faces.join(" ") }) }));
  }
  const proof = $("proof");
  show(proof, !!(last && last.proof));
  if (last && last.proof && proof.getAttribute("src") !== last.proof) proof.src = last.proof;
}

function renderCrew(view) {
  const rocket = view.state.rocket;
  replace($("crew"), rocket.length ? rocket.map((a, i) => el("li", {},
    chip(seatOf(view, a.seat)), " ", el("span", { text: t(`kind.${a.kind}`) }),
    i === 0 ? el("span", { class: "badge captain", text: t("crew.captain") }) : null))
    : [el("li", { class: "muted", text: t("crew.empty") })]);
}

function renderOdds(view) {
  const odds = view.odds;
  const toggle = $("odds-toggle-label");
  show(toggle, !!(me.device && me.device.is_host));
  $("odds-toggle").checked = view.odds_enabled;
  if (!view.odds_enabled) { $("odds-text").textContent = t("odds.off"); return; }
  if (!odds) { $("odds-text").textContent = t("odds.none"); return; }
  let text = t("odds.crash", { p: pct(odds.crash.p), n: odds.available });
  if (odds.crash_with_reroll) text += " " + t("odds.reroll", { p: pct(odds.crash_with_reroll.p) });
  $("odds-text").textContent = text;
}

function renderTrack(view) {
  const state = view.state;
  const board = view.board;
  const reach = (view.odds && view.odds.reach) || {};
  const moonHolders = state.moons || {};
  const explore = state.exploration || {};
  replace($("track"), board.spaces.map((space) => {
    const here = space.i === state.space;
    const odds = reach[String(space.i)];
    return el("li", { class: `space${here ? " rocket" : ""}${space.i < board.no_landing_below ? " low" : ""}`, "data-space": space.i },
      el("div", { class: "space-head" },
        el("strong", { text: space.i === board.last_space ? t("track.deep") : String(space.i) }),
        here ? el("span", { class: "rocket-mark", text: `▲ ${t("track.rocket")}` }) : null,
        state.ufo && state.ufo.position === space.i ? el("span", { class: "badge", text: "UFO" }) : null),
      el("div", { class: "allowed" }, space.faces.map((f) => el("span", {
        class: `die small face-${f}`, text: f === "fuel" ? `${t("dice.fuel")}×${space.fuel}` : f,
      }))),
      space.moons.map((m) => el("div", { class: "moon" }, el("span", { text: `☾ ${m.id} (${m.points})` }),
        moonHolders[m.id] !== undefined ? chip(seatOf(view, moonHolders[m.id])) : null)),
      space.planet ? el("div", { class: "planet-ref", text: `◯ ${space.planet}` }) : null,
      explore[String(space.i)] ? el("div", { class: "badge", text: t("track.explore") }) : null,
      odds && odds.p > 0 ? el("div", { class: "reach", text: pct(odds.p) }) : null);
  }));
  replace($("deep-space"),
    el("span", { text: `${t("track.comet")} (${board.comet_points}): ` }), (state.comet || []).map((s) => chip(seatOf(view, s))),
    el("span", { text: ` ${t("track.galaxy")} (${board.galaxy_points}): ` }), (state.galaxy || []).map((s) => chip(seatOf(view, s))));
}

function renderPlanets(view) {
  const planets = view.state.planets || {};
  replace($("planets"), Object.entries(view.board.planets).map(([pid, pts]) => {
    const ranks = (view.planet_ranks || {})[pid] || [];
    return el("div", { class: "planet" },
      el("h3", { text: `${pid} · ${pts.gold}/${pts.silver}/${pts.bronze}` }),
      el("div", { class: "occupants" }, (planets[pid] || []).map((p) => chip(seatOf(view, p.seat)))),
      ranks.length ? el("p", { class: "muted", text: t("bodies.leader", { name: seatOf(view, ranks[0]).name }) }) : null);
  }));
}

function renderGoals(view) {
  replace($("goals"), Object.entries(view.state.goals).map(([goal, seat]) => el("li", {},
    el("span", { text: t(`goal.${goal}`) }), " ",
    seat === null ? el("span", { class: "muted", text: t("goals.open") }) : chip(seatOf(view, seat)))));
}

const SCORE_PARTS = ["moons", "planets", "deep_space", "goals", "ufo", "exploration", "missions"];

function scoreTable(view, final) {
  const variants = (view.setup && view.setup.variants) || [];
  const parts = SCORE_PARTS.filter((p) => !["ufo", "exploration", "missions"].includes(p) || variants.includes(p));
  const winners = view.state.winners || [];
  return el("table", { class: "scores" },
    el("thead", {}, el("tr", {}, el("th", { text: t("scores.player") }),
      parts.map((p) => el("th", { text: t(`scores.${p}`) })), el("th", { text: t("scores.total") }))),
    el("tbody", {}, view.state.players.map((p) => el("tr", { class: final && winners.includes(p.seat) ? "winner" : null },
      el("td", {}, chip(seatOf(view, p.seat))),
      parts.map((part) => el("td", { text: p.score[part] === null ? "?" : String(p.score[part]) })),
      el("td", {}, el("strong", { text: String(p.score.total) }))))));
}

function renderFinal(view) {
  const state = view.state;
  replace($("winners"), t("final.winners"), " ", state.winners.map((s) => chip(seatOf(view, s))));
  $("end-reason").textContent = state.end_reason ? t("final.reason", { reason: state.end_reason }) : "";
  replace($("final-scores"), scoreTable(view, true));
  const medals = [t("final.gold"), t("final.silver"), t("final.bronze")];
  replace($("planet-ranks"), Object.entries(view.planet_ranks || {}).map(([pid, seats]) => el("div", { class: "rank" },
    el("strong", { text: pid }), " ",
    seats.length ? seats.map((s, i) => el("span", {}, `${medals[Math.min(i, 2)]} `, chip(seatOf(view, s)), " "))
      : el("span", { class: "muted", text: t("final.empty_planet") }))));
  $("record-link").href = `/api/games/${view.game_id}/record`;
}

function initTable() {
  $("dice-clear").addEventListener("click", () => { table.picked = []; renderDiceEntry(table.view); });
  $("dice-submit").addEventListener("click", async () => {
    const faces = [...table.picked];
    table.picked = [];
    if (table.correcting) {
      table.correcting = false;
      await api("POST", "/api/correct", { faces });
    } else {
      await api("POST", "/api/actions", { action: ["roll", ...faces].join(" "), version: table.view.version });
    }
  });
  $("undo").addEventListener("click", () => api("POST", "/api/undo", { steps: 1 }));
  $("redo").addEventListener("click", () => api("POST", "/api/redo", { steps: 1 }));
  $("draw").addEventListener("click", () => api("POST", "/api/draw", {}));
  $("correct").addEventListener("click", () => {
    table.correcting = !table.correcting;
    table.picked = [];
    renderTable(table.view);
  });
  $("odds-toggle").addEventListener("change", (e) => api("POST", "/api/odds", { enabled: e.target.checked }));
  const source = new EventSource("/api/stream");
  source.addEventListener("snapshot", (e) => onView(JSON.parse(e.data)));
  source.addEventListener("open", () => document.body.classList.remove("offline"));
  source.addEventListener("error", () => document.body.classList.add("offline"));
}

// ------------------------------------------------------------------ join & pairing

async function initJoin() {
  const params = new URLSearchParams(location.search);
  if (params.get("code")) $("pair-code").value = params.get("code");
  $("pair-name").value = localStorage.getItem("mlem-name") || "";
  $("pair-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("pair-name").value.trim();
    localStorage.setItem("mlem-name", name);
    const result = await api("POST", "/api/pair", { code: $("pair-code").value.trim(), name });
    if (result.ok) { toast(t("join.done")); await renderJoin(); }
  });
  $("unpair").addEventListener("click", async () => {
    await api("DELETE", "/api/me");
    Object.assign(me, { paired: false, csrf: null, device: null });
    await renderJoin();
  });
  await renderJoin();
}

async function renderJoin() {
  await loadMe();
  show($("pair-card"), !me.paired);
  show($("paired-card"), me.paired);
  show($("host-card"), !!(me.device && me.device.is_host));
  if (!me.paired) return;
  $("paired-text").textContent = t(me.device.is_host ? "join.paired_host" : "join.paired_as", { name: me.device.name });
  if (!me.device.is_host) return;
  $("invite-qr").src = `/api/pairing/invite.svg?t=${Date.now()}`;
  const { data } = await api("GET", "/api/devices");
  replace($("devices"), ((data && data.devices) || []).map((d) => el("li", {},
    el("span", { text: `${d.is_host ? "★ " : ""}${d.name}` }),
    d.seat !== null ? el("span", { class: "muted", text: ` · ${t("host.seat", { seat: d.seat + 1 })}` }) : null,
    d.id === me.device.id ? null : el("button", { type: "button", class: "small", onclick: async () => {
      await api("DELETE", `/api/devices/${encodeURIComponent(d.id)}`);
      await renderJoin();
    } }, t("host.revoke")))));
}

// ------------------------------------------------------------------ setup wizard

const setup = { options: null, players: [] };

async function initSetup() {
  await loadMe();
  show($("setup-host-only"), !(me.device && me.device.is_host));
  const { data } = await api("GET", "/api/setup");
  setup.options = data;
  const current = data.current;
  const names = current ? current.players : ["", ""];
  setup.players = names.map((name, i) => ({ name, colour: data.palette[i].name, bot: false }));
  replace($("variants"), data.variants.map((v) => el("label", { class: "check" },
    el("input", { type: "checkbox", value: v, checked: !!(current && current.variants.includes(v)) }),
    " ", t(`variant.${v}`))));
  replace($("board"), data.boards.map((b) => el("option", { value: b, text: b })));
  $("add-player").addEventListener("click", () => {
    if (setup.players.length >= data.max_players) return;
    const used = setup.players.map((p) => p.colour);
    const free = data.palette.find((c) => !used.includes(c.name));
    setup.players.push({ name: "", colour: free.name, bot: false });
    renderPlayers();
  });
  $("setup-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      players: setup.players.map((p, i) => ({ name: p.name.trim() || t("setup.default_name", { n: i + 1 }), colour: p.colour, bot: p.bot })),
      starter: Number($("starter").value),
      variants: [...document.querySelectorAll("#variants input:checked")].map((i) => i.value),
      board: $("board").value,
    };
    const result = await api("POST", "/api/setup", body);
    if (result.ok) location.href = "/";
  });
  renderPlayers();
}

function renderPlayers() {
  const data = setup.options;
  const players = setup.players;
  const starter = $("starter").value;
  replace($("players"), players.map((p, i) => el("li", { class: "player" },
    el("span", { class: `chip c-${p.colour}`, text: data.symbols[i % data.symbols.length] }),
    el("input", { value: p.name, placeholder: t("setup.default_name", { n: i + 1 }), maxlength: 24,
      "aria-label": t("setup.name"), oninput: (e) => { p.name = e.target.value; renderStarter(); } }),
    el("select", { "aria-label": t("setup.colour"), onchange: (e) => {
      const other = players.find((q) => q !== p && q.colour === e.target.value);
      if (other) other.colour = p.colour;
      p.colour = e.target.value;
      renderPlayers();
    } }, data.palette.map((c) => el("option", { value: c.name, selected: c.name === p.colour, text: t(`colour.${c.name}`) }))),
    el("label", { class: "check" }, el("input", { type: "checkbox", checked: p.bot, onchange: (e) => { p.bot = e.target.checked; } }), " ", t("setup.bot")),
    el("span", { class: "order" },
      el("button", { type: "button", class: "small", "aria-label": t("setup.up"), disabled: i === 0, onclick: () => move(i, -1) }, "↑"),
      el("button", { type: "button", class: "small", "aria-label": t("setup.down"), disabled: i === players.length - 1, onclick: () => move(i, 1) }, "↓"),
      el("button", { type: "button", class: "small", "aria-label": t("setup.remove"), disabled: players.length <= data.min_players, onclick: () => { players.splice(i, 1); renderPlayers(); } }, "✕")))));
  $("add-player").disabled = players.length >= data.max_players;
  renderStarter(starter);
}

function move(i, step) {
  const players = setup.players;
  [players[i], players[i + step]] = [players[i + step], players[i]];
  renderPlayers();
}

function renderStarter(keep) {
  const select = $("starter");
  const value = keep !== undefined ? keep : select.value;
  replace(select, setup.players.map((p, i) => el("option", { value: String(i), text: p.name || t("setup.default_name", { n: i + 1 }) })));
  if (value && Number(value) < setup.players.length) select.value = value;
}

// ------------------------------------------------------------------ history

async function initHistory() {
  const { data } = await api("GET", "/api/history");
  if (!data) return;
  const s = data.stats;
  const stat = (key, value) => [el("dt", { text: t(key) }), el("dd", { text: value === null ? "–" : String(value) })];
  replace($("stats"),
    stat("history.played", s.games_played),
    stat("history.average", s.average_score),
    stat("history.crash_rate", s.crash_rate === null ? null : pct(s.crash_rate)));
  replace($("best"), s.best_astronauts.map((row) => el("li", {
    text: t("history.best_row", { kind: t(`kind.${row.kind}`), points: row.average_points, n: row.landings }),
  })));
  show($("no-games"), data.games.length === 0);
  replace($("games"), data.games.map((g) => el("li", { class: "game" },
    el("strong", { text: `#${g.id} ` }),
    el("span", { text: new Date(g.finished * 1000).toLocaleString() }), el("br"),
    el("span", { text: g.players.map((name, i) => `${g.winners.includes(i) ? "★ " : ""}${name} ${g.scores[i] ?? ""}`).join(" · ") }),
    g.variants.length ? el("span", { class: "muted", text: ` (${g.variants.map((v) => t(`variant.${v}`)).join(", ")})` }) : null,
    " ", el("a", { href: `/api/games/${g.id}/record`, download: `mlem-game-${g.id}.json` }, t("history.record")))));
}

// ------------------------------------------------------------------ start

document.addEventListener("DOMContentLoaded", async () => {
  $("lang").addEventListener("change", (e) => {
    document.cookie = `lang=${e.target.value}; path=/; max-age=31536000; SameSite=Strict`;
    location.reload();
  });
  const page = document.body.dataset.page;
  if (page === "table") { await loadMe(); initTable(); }
  else if (page === "join") await initJoin();
  else if (page === "setup") await initSetup();
  else if (page === "history") { await loadMe(); await initHistory(); }
});
