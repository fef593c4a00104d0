package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/agentplatform/mockplatform"
)

// The test helpers of this package, in one place: the browser, a session
// on one tab, what a page shows, screenshots, and calls of the emulated
// API that a client under test would make.

// updateEnv saves the screenshots into docs/img when set to 1.
const updateEnv = "MOCKD_UPDATE_SCREENSHOTS"

// requireEnv makes a missing browser fail the tests instead of skipping
// them (.ci/run sets it after installing Chromium).
const requireEnv = "MOCKD_REQUIRE_BROWSER"

// browserEnv names the browser binary to use.
const browserEnv = "MOCKD_BROWSER"

// waitFor bounds every wait for the page (a render, a refresh after a
// call): generous, as a loaded CI machine is slow; a wait that passes
// returns at once.
const waitFor = 20 * time.Second

// findBrowser returns the path of a Chromium-compatible browser, or skips
// the test (fails it when a browser is required).
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(browserEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found (looked for chromium, chromium-browser, google-chrome, headless-shell on PATH, and " +
		browserEnv + "): install it (Debian: apt-get install chromium) to run the console's browser tests"
	if os.Getenv(requireEnv) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// session is one browser tab on a platform's console.
type session struct {
	t   *testing.T
	ctx context.Context
	p   *mockplatform.Platform
	// base is the console's address.
	base string
}

// newSession starts a headless browser (its own, closed with the test)
// with a 1280-pixel wide window. Dialogs (confirm) are accepted; with
// credentials, the browser signs in to HTTP authentication with them, as
// a user would in its prompt.
func newSession(t *testing.T, p *mockplatform.Platform, credentials ...string) *session {
	t.Helper()
	exe := findBrowser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-US"), chromedp.Flag("font-render-hinting", "none"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser and opens the tab
		t.Fatalf("start %s: %v", exe, err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil {
				return
			}
		}
	}()
	if len(credentials) == 2 {
		signIn(t, ctx, credentials[0], credentials[1])
	}
	return &session{t: t, ctx: ctx, p: p, base: p.URL() + "/_mock/ui/"}
}

// signIn answers the browser's HTTP authentication challenges with a user
// name and password, as a person would in the browser's prompt.
func signIn(t *testing.T, ctx context.Context, user, password string) {
	t.Helper()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	auth := chromedp.Events(ctx, fetch.AuthRequired)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID}); err != nil {
				return
			}
		}
	}()
	go func() {
		for ev, err := range auth {
			if err != nil {
				return
			}
			_, err := chromedp.Call(ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID,
				AuthChallengeResponse: &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials,
					Username: user, Password: password}})
			if err != nil {
				return
			}
		}
	}()
	handle := true
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{HandleAuthRequests: &handle}); err != nil {
		t.Fatal(err)
	}
}

// do runs browser actions, failing the test on an error.
func (s *session) do(steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	if err := chromedp.Do(s.ctx, steps...); err != nil {
		s.t.Fatalf("browser: %v", err)
	}
}

// open loads a console page (a path below the console's root).
func (s *session) open(path string) {
	s.t.Helper()
	s.do(chromedp.Navigate(s.base + path))
}

// eval evaluates a script in the page and decodes its value.
func eval[T any](s *session, script string) T {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[T](script))
	if err != nil {
		s.t.Fatalf("evaluate %s: %v", script, err)
	}
	return v
}

// text is what an element shows (its innerText), "" when it is missing.
func (s *session) text(sel string) string {
	s.t.Helper()
	return eval[string](s, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, sel))
}

// waitText waits until an element shows a text; it fails with what the
// element shows instead.
func (s *session) waitText(sel, want string) {
	s.t.Helper()
	script := fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText.includes(%q)`, sel, want)
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[bool](script, chromedp.WithPollingTimeout(waitFor))); err != nil {
		s.t.Fatalf("%s never showed %q (%v); it shows:\n%s", sel, want, err, s.text(sel))
	}
}

// waitGone waits until no element matches a selector.
func (s *session) waitGone(sel string) {
	s.t.Helper()
	script := fmt.Sprintf(`document.querySelector(%q) === null`, sel)
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[bool](script, chromedp.WithPollingTimeout(waitFor))); err != nil {
		s.t.Fatalf("%s is still there: %v", sel, err)
	}
}

// status waits for the status message of the last action to say want.
func (s *session) status(want string) {
	s.t.Helper()
	s.waitText("#status", want)
}

// click clicks the element a CSS selector names (with the mouse). The
// status message is cleared first, so that status waits for the message
// of this action, not of an earlier one.
func (s *session) click(sel string) {
	s.t.Helper()
	s.clearStatus()
	s.do(chromedp.Click(chromedp.CSS(sel)))
}

// press presses a key (kb.Enter, kb.Tab) on the element with the focus,
// the status message cleared first.
func (s *session) press(key string) {
	s.t.Helper()
	s.clearStatus()
	s.do(chromedp.KeyEvent(key))
}

// focus gives an element the focus, as Tab would (in one step in the
// page, so that a refresh of the page cannot come in between).
func (s *session) focus(sel string) {
	s.t.Helper()
	if !eval[bool](s, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.focus(); return document.activeElement === e })()`, sel)) {
		s.t.Fatalf("cannot focus %s", sel)
	}
}

func (s *session) clearStatus() {
	s.t.Helper()
	eval[bool](s, `(document.getElementById("status").textContent = "", true)`)
}

// fill types a value into a field, replacing what it held.
func (s *session) fill(sel, value string) {
	s.t.Helper()
	eval[bool](s, fmt.Sprintf(`(document.querySelector(%q).value = "", true)`, sel))
	s.do(chromedp.SendKeys(chromedp.CSS(sel), value))
}

// shot saves a screenshot of the whole page as docs/img/console-NAME.png
// when MOCKD_UPDATE_SCREENSHOTS=1. The status message is cleared first.
func (s *session) shot(name string) {
	s.t.Helper()
	if os.Getenv(updateEnv) != "1" {
		return
	}
	eval[bool](s, `(document.getElementById("status").textContent = "", document.activeElement && document.activeElement.blur(), true)`)
	// The pointer leaves the page: no button shows its hover colour.
	if _, err := chromedp.Call(s.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: 1279, Y: 899}); err != nil {
		s.t.Fatal(err)
	}
	png, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "img", "console-"+name+".png")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("saved %s", path)
}

// contrastScript lists the text elements whose text contrasts less than
// 4.5:1 with the background behind them (WCAG 2.1, 1.4.3), composing
// translucent backgrounds up to the first opaque one.
const contrastScript = `(() => {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let out = { r: 255, g: 255, b: 255, a: 1 };
    for (const l of layers.reverse()) out = over(l, out);
    return out;
  };
  const bad = [];
  const seen = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (cs.visibility === 'hidden' || box.width <= 1 || box.height <= 1 || el.closest('[hidden], option, script, style, title')) continue;
    const bg = background(el);
    const fg = over(parse(cs.color), bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) bad.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' "' + node.textContent.trim().slice(0, 40) + '": ' + ratio.toFixed(2) + ':1');
  }
  return bad;
})()`

// checkContrast fails for every text of the page below 4.5:1.
func (s *session) checkContrast(page string) {
	s.t.Helper()
	for _, bad := range eval[[]string](s, contrastScript) {
		s.t.Errorf("%s: contrast below 4.5:1: %s", page, bad)
	}
}

// focused describes the element that has the focus: its tag, text and
// whether its focus is drawn (an outline of 2 pixels or more).
type focused struct {
	Tag, Text, Label string
	Outline          bool
}

func (s *session) focused() focused {
	s.t.Helper()
	return eval[focused](s, `(() => {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  return { Tag: el.tagName.toLowerCase(), Text: (el.innerText || el.value || '').trim(),
    Label: el.getAttribute('aria-label') || '',
    Outline: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2 };
})()`)
}

// api calls the emulated API over the platform's listener, as a client
// under test would; body is a value sent as JSON (or nil); it returns the
// status and the decoded answer.
func api(t *testing.T, method, url string, body any, headers ...string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if len(data) > 0 && json.Unmarshal(data, &m) != nil {
		t.Fatalf("%s %s: not a JSON object: %s", method, url, data)
	}
	return resp.StatusCode, m
}

var chatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token"}

// chat starts a chat conversation (body: the create body) and sends
// messages; it returns the conversation's id.
func chat(t *testing.T, p *mockplatform.Platform, body any, messages ...string) string {
	t.Helper()
	status, out := api(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", body, chatHeaders...)
	if status != 200 {
		t.Fatalf("chat create: %d %v", status, out)
	}
	id := out["conversation_id"].(string)
	for _, m := range messages {
		status, out := api(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond",
			map[string]any{"conversation_id": id, "message": m}, chatHeaders...)
		if status != 200 {
			t.Fatalf("chat respond: %d %v", status, out)
		}
	}
	return id
}

// has reports whether s contains every part.
func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
