// The live page (issue 24): one site's devices with their latest values, updated from
// GET /api/v1/stream, and a chart of one device's last day from /history. Plain
// JavaScript, no build step. The key comes from the page's fragment (#key=..., which a
// browser never sends to a server) or a form, is kept in sessionStorage, and travels only
// in the Authorization header: the stream is read with fetch, not EventSource, which
// cannot send headers.
"use strict";
(() => {
  const API = "/api/v1";
  const fragment = new URLSearchParams(location.hash.slice(1));
  let key = fragment.get("key") || sessionStorage.getItem("telemetryKey");
  if (fragment.has("key")) {
    sessionStorage.setItem("telemetryKey", key);
    fragment.delete("key");
    const rest = fragment.toString();
    history.replaceState(null, "", location.pathname + (rest ? "#" + rest : ""));
  }
  const rows = new Map();
  const names = new Map();
  const shown = new Map();
  let lastEventId = null;
  let charted = null;
  let plot = null;
  let series = [[], []];

  const $ = (selector) => document.querySelector(selector);
  const status = (text) => { $("#status").textContent = text; };
  const headers = (more) => ({ Authorization: "Bearer " + key, ...more });

  async function get(path) {
    const response = await fetch(API + path, { headers: headers() });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error((body.error && body.error.message) || response.status);
    }
    return response.json();
  }

  function show(value) {
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
    if (value && typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function row(deviceId) {
    let tr = rows.get(deviceId);
    if (!tr) {
      tr = document.createElement("tr");
      tr.dataset.device = deviceId;
      for (const name of ["name", "values", "signal", "time"]) {
        const td = document.createElement("td");
        td.className = name;
        tr.appendChild(td);
      }
      tr.querySelector(".name").textContent = names.get(deviceId) || deviceId.slice(0, 8);
      tr.addEventListener("click", () => chart(deviceId, shown.get(deviceId)));
      $("#devices tbody").appendChild(tr);
      rows.set(deviceId, tr);
    }
    return tr;
  }

  function latest(data) {
    shown.set(data.deviceId, data);
    const tr = row(data.deviceId);
    tr.querySelector(".values").textContent = Object.entries(data.values)
      .map(([field, value]) => field + " " + show(value)).join(" · ");
    tr.querySelector(".signal").textContent = data.signalQuality == null ? "" : data.signalQuality;
    tr.querySelector(".time").textContent = data.time ? new Date(data.time).toLocaleTimeString() : "never";
    tr.classList.remove("changed");
    void tr.offsetWidth; // restarts the flash
    tr.classList.add("changed");
    if (charted && charted.deviceId === data.deviceId && data.time) {
      const value = data.values[charted.field];
      if (typeof value === "number") {
        series[0].push(Date.parse(data.time) / 1000);
        series[1].push(value);
        if (plot) plot.setData(series);
      }
    }
    if (!charted) chart(data.deviceId, data);
  }

  function handle(block) {
    let kind = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") kind = value;
      else if (field === "data") data += value;
      else if (field === "id") lastEventId = value;
    }
    if (kind === "latest") latest(JSON.parse(data));
    else if (kind === "removed") {
      const gone = JSON.parse(data).deviceId;
      const tr = rows.get(gone);
      if (tr) tr.remove();
      rows.delete(gone);
      shown.delete(gone);
    }
  }

  async function stream(query) {
    for (;;) {
      try {
        const more = { Accept: "text/event-stream" };
        if (lastEventId) more["Last-Event-ID"] = lastEventId;
        const response = await fetch(API + "/stream" + query, { headers: headers(more) });
        if (!response.ok) {
          const wait = Number(response.headers.get("Retry-After")) || 5;
          status("stream refused (" + response.status + "); retrying in " + wait + " s");
          await new Promise((done) => setTimeout(done, wait * 1000));
          continue;
        }
        status("live");
        document.body.dataset.live = "yes";
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            handle(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) {
        status("stream interrupted (" + error.message + "); reconnecting");
      }
      document.body.dataset.live = "no";
      await new Promise((done) => setTimeout(done, 1000));
    }
  }

  async function chart(deviceId, data) {
    const values = data ? data.values : null;
    const wanted = fragment.get("field");
    const field = values && (typeof values[wanted] === "number" ? wanted
      : Object.keys(values).find((name) => typeof values[name] === "number"));
    if (!field) return;
    charted = { deviceId, field };
    for (const [id, tr] of rows) tr.classList.toggle("selected", id === deviceId);
    $("#chart-title").textContent = (names.get(deviceId) || deviceId) + ": " + field;
    const path = "/devices/" + deviceId + "/history?field=" + encodeURIComponent(field)
      + "&from=now-P1D&to=now";
    const history = (await get(path)).data;
    series = [
      history.points.map((point) => Date.parse(point.time) / 1000),
      history.points.map((point) => point.value),
    ];
    if (plot) plot.destroy();
    plot = new uPlot({
      width: 760,
      height: 260,
      series: [{}, { label: field, stroke: "#2f6fde", width: 2 }],
      axes: [{}, {}],
    }, series, $("#chart"));
    document.body.dataset.chart = String(history.points.length);
  }

  async function start() {
    if (!key) {
      $("#login").hidden = false;
      $("#login").addEventListener("submit", (event) => {
        event.preventDefault();
        key = $("#key").value.trim();
        sessionStorage.setItem("telemetryKey", key);
        $("#login").hidden = true;
        start();
      });
      status("paste an API key");
      return;
    }
    let site = fragment.get("site");
    if (!site) {
      try {
        const sites = await get("/sites?limit=1");
        if (sites.data.length) site = sites.data[0].id;
      } catch (error) { /* no sites (multi-site off): every device of the key */ }
    }
    if (site) {
      try { $("#site").textContent = "· " + (await get("/sites/" + site)).data.name; } catch (e) { /* unnamed */ }
    }
    // The site's whole subtree (a campus shows its buildings' devices).
    const query = site ? "?includeDescendants=true&siteId=" + encodeURIComponent(site) : "";
    try {
      const devices = await get("/devices?status=assigned&limit=200" + (site ? "&" + query.slice(1) : ""));
      for (const device of devices.data) names.set(device.id, device.name);
    } catch (error) { /* names are a nicety: the stream carries ids */ }
    await stream(query);
  }

  start();
})();
