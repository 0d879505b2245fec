/* ---- calling contexts (view_flame.js, included by tools/gen-view-page.py) ----
 * D.callstacks (view_stacks.c): flame graphs of the CPU samples and of GPU
 * time by launch path, and each API call's stack by (pid, tid, start). A
 * clicked API call, or a device command through its enqueue call, shows the
 * stack it came from in the details panel. Names reach the DOM as text. */
var CS = D.callstacks || null, csIndex = null;
function stackOf(pid, tid, st) {
	if (!CS) return null;
	if (!csIndex) {
		csIndex = new Map();
		for (var i = 0, a = CS.api; i + 3 < a.length; i += 4) csIndex.set(a[i] + ":" + a[i + 1] + ":" + a[i + 2], a[i + 3]);
	}
	var p = csIndex.get(pid + ":" + tid + ":" + st);
	return p === undefined ? null : CS.paths[p];
}
function stackLines(h, box) {
	if (!CS || box.id !== "details") return;
	var api = h.row.track.k === "thread" ? h : partner(h);
	if (!api || api.row.track.k !== "thread" || (api.row.track.ct[api.k] & 3) !== 0) return;
	var frames = stackOf(api.row.proc.pid, api.row.track.tid, api.row.track.st[api.k]);
	if (!frames) return;
	line(box, "l", (h === api ? "called from" : "launched from") + " (outermost first):");
	var list = document.createElement("div");
	list.className = "stack";
	frames.forEach(function (f, i) {
		var e = document.createElement("div");
		e.textContent = f;
		e.style.paddingLeft = (8 + 10 * i) + "px";
		e.style.fontFamily = "ui-monospace, monospace";
		list.appendChild(e);
	});
	box.appendChild(list);
}
function flameColor(name) {
	var h = 0;
	for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
	return "hsl(" + (10 + h % 50) + "," + (55 + h % 30) + "%," + (62 + h % 14) + "%)";
}
function flameGraph(title, g, fmt) {
	var sec = document.createElement("section"), head = document.createElement("h2");
	var box = document.createElement("div"), ROW = 18;
	sec.className = "flame";
	sec.style.padding = "0 10px 16px";
	head.style.fontSize = "13px";
	head.textContent = title + " (click a frame to zoom in, the bottom bar to zoom out)";
	box.style.position = "relative";
	box.style.width = "100%";
	box.style.overflow = "hidden";
	sec.appendChild(head);
	sec.appendChild(box);
	document.body.appendChild(sec);
	function render(root) {
		var width = box.clientWidth || 1000, depth = 0;
		while (box.firstChild) box.removeChild(box.firstChild);
		function walk(n, x, d) {
			var w = root[1] ? n[1] / root[1] : 0;
			if (w * width < 1) return;
			depth = Math.max(depth, d);
			var e = document.createElement("div");
			e.className = "frame";
			e.style.cssText = "position:absolute;height:" + (ROW - 1) + "px;overflow:hidden;white-space:nowrap;" +
				"font-size:11px;line-height:" + (ROW - 1) + "px;padding-left:2px;box-sizing:border-box;" +
				"border-right:1px solid #fff;cursor:pointer;background:" + flameColor(n[0]);
			e.style.left = (x * 100) + "%";
			e.style.width = (w * 100) + "%";
			e.style.bottom = (d * ROW) + "px"; /* the root at the bottom, callees above */
			e.textContent = n[0];
			e.title = n[0] + ": " + fmt(n[1]) + " (" + pct(n[1], g.total) + ")";
			e.onclick = function () { render(n === root ? g.tree : n); };
			box.appendChild(e);
			var cx = x;
			n[2].forEach(function (k) { walk(k, cx, d + 1); cx += root[1] ? k[1] / root[1] : 0; });
		}
		walk(root, 0, 0);
		box.style.height = ((depth + 1) * ROW) + "px";
	}
	render(g.tree);
}
function flames() {
	if (!CS) return;
	if (CS.cpu.total) flameGraph("CPU samples by call path (" + fmtNum(CS.cpu.total) + " samples)", CS.cpu, function (v) { return fmtNum(v) + " samples"; });
	if (CS.gpu.total) flameGraph("GPU time by launch path (" + fmtDur(CS.gpu.total) + " of device time)", CS.gpu, fmtDur);
}

