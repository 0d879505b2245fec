# Helpers for the HTML view's tests (sourced after tests/integration/lib.sh):
# headless Chromium loads a page and dumps its DOM or takes a screenshot.
# Chromium is required: without it the tests fail, they do not skip.
HERE=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || fail "chromium not found: apt-get install chromium (tools/install-deps.sh)"

# chrome ARGS...: headless, offline, its own profile, a fixed window
# (VIEW_WINDOW=W,H, 1280,800 unless set)
chrome() {
	timeout 50 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --no-first-run --disable-component-update \
		--disable-sync --user-data-dir="$WORK/chrome-profile" --window-size="${VIEW_WINDOW:-1280,800}" \
		--enable-logging=stderr --v=0 "$@"
}

# page_dom HTML OUT [#HASH]: the DOM after load into OUT; fails on a console
# message (the page writes none: any is an error or a CSP violation), on an
# error the page caught, or if its script did not run to the end.
page_dom() {
	chrome --dump-dom "file://$WORK/$1${3:-}" >"$2" 2>"$2.log" ||
		fail "chromium --dump-dom failed on $1: $(tail -3 "$2.log")"
	if grep -a "CONSOLE" "$2.log"; then
		fail "$1: console messages while loading"
	fi
	grep -q 'data-ready="1"' "$2" || fail "$1: the page's script did not finish (no data-ready)"
	if grep -q 'data-error=' "$2"; then
		fail "$1: the page reported an error: $(grep -o '<div id="error">[^<]*' "$2")"
	fi
}

# page_shot HTML PNG [#HASH]: a screenshot of the window (1280x800 unless
# VIEW_WINDOW says otherwise)
page_shot() {
	chrome --screenshot="$WORK/$2" "file://$WORK/$1${3:-}" >"$2.log" 2>&1 ||
		fail "chromium --screenshot failed on $1: $(tail -3 "$2.log")"
	[ -s "$2" ] || fail "no screenshot of $1"
}

# timeline_drawn HTML DOM MIN: the screenshot has at least MIN coloured
# pixels where the page says its timeline is (data-canvas in the DOM)
timeline_drawn() {
	local rect
	rect=$(grep -o 'data-canvas="[0-9,]*"' "$2" | head -1 | tr -dc '0-9,')
	[ -n "$rect" ] || fail "$1: no data-canvas in the DOM"
	page_shot "$1" shot.png
	python3 "$HERE/png_check.py" shot.png "$rect" "$3" || fail "$1: the timeline looks empty"
}

# in_dom TEXT FILE WHAT: a fixed string is in the dumped DOM
in_dom() {
	grep -qF -- "$1" "$2" || fail "$3: '$1' not in $2"
}
