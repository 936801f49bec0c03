// Package browsercheck loads fsmove's HTML report in a headless Chromium
// (through chromedp) and checks that it works as a person uses it: no
// console errors or uncaught exceptions, one element per reported
// finding, the kind and resource filters, the drawings, the copy buttons.
// The report package's tests and the end-to-end tests of cmd/fsmove
// share it; it starts one browser per test process.
package browsercheck

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fsmove/fsmove/internal/testenv"
)

// Expect is what the page must show.
type Expect struct {
	// Findings is the number of reported findings (Report.Faults).
	Findings int
	// Graphs: each reported finding of two resources has a drawing of
	// its pair (an NI finding of one resource has none).
	Graphs bool
}

// browsers are the names the Chromium binary has on Debian and elsewhere.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// browser is the one browser of the test process, started on first use.
var browser struct {
	once sync.Once
	ctx  context.Context
	err  error
}

// findBrowser returns the browser's path, or "" when none is installed.
func findBrowser() string {
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// start starts the process's browser once; later calls return it. The
// browser ends with the process (chromedp gives it Pdeathsig on Linux).
func start(path string) (context.Context, error) {
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU)
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses its sandbox as root
		}
		alloc, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, _ := chromedp.NewContext(alloc)
		// The browser lives as long as the context of its first action:
		// that one has no timeout (each page's tab has one).
		if err := chromedp.Do(ctx); err != nil {
			browser.err = fmt.Errorf("starting %s: %w", path, err)
			return
		}
		browser.ctx = ctx
	})
	return browser.ctx, browser.err
}

// Check loads the page file in the browser and checks it against want.
// Without Chromium the test is skipped, unless FSMOVE_E2E=1 (CI): then it
// fails. With FSMOVE_SCREENSHOT=FILE it also writes a PNG of the page,
// 1280 pixels wide, to FILE.
func Check(t testing.TB, page string, want Expect) {
	t.Helper()
	path := findBrowser()
	if path == "" {
		testenv.Missing(t, "no Chromium (%s) to check %s: install Debian's chromium package", strings.Join(browsers, ", "), page)
	}
	parent, err := start(path)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: abs}).String()

	ctx, cancelTab := chromedp.NewContext(parent) // a tab of its own
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	// Subscribe before loading so that no message is lost.
	var (
		mu       sync.Mutex
		problems []string
	)
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1000)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}

	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return n
	}
	if shot := os.Getenv("FSMOVE_SCREENSHOT"); shot != "" {
		screenshot(t, ctx, eval, shot) // before the filters change the page
	}
	const visible = `document.querySelectorAll("#findings article.finding:not([hidden])").length`
	if n := eval(`document.querySelectorAll("#findings article.finding").length`); n != want.Findings {
		t.Errorf("%s: %d finding elements, want %d (the reported findings)", page, n, want.Findings)
	}
	if n := eval(visible); n != want.Findings {
		t.Errorf("%s: %d findings visible before any filter, want %d", page, n, want.Findings)
	}
	// NI findings have no chaining arrow to copy.
	arrows := count(eval, `#findings article.finding:not([data-kind='NI'])`)
	if n := eval(`document.querySelectorAll("#findings button.copy").length`); n < arrows {
		t.Errorf("%s: %d copy buttons for %d MOR and MN findings", page, n, arrows)
	}
	if want.Graphs {
		// Every drawing is laid out with a size: it rendered. A finding's
		// data-resources has a line per resource.
		pairs := eval(`Array.from(document.querySelectorAll("#findings article.finding")).filter(f => f.dataset.resources.includes("\n")).length`)
		drawn := eval(`Array.from(document.querySelectorAll("#findings article.finding svg")).filter(s => { const r = s.getBoundingClientRect(); return r.width > 0 && r.height > 0 }).length`)
		if drawn != pairs {
			t.Errorf("%s: %d drawings with a size, want one per finding of two resources (%d)", page, drawn, pairs)
		}
	}
	checkKindFilter(t, ctx, page, eval)
	checkResourceFilter(t, ctx, page, eval, want.Findings)

	cancelTab() // ends the subscription
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: console: %s", page, p)
	}
}

// screenshot writes a PNG of the whole page, 1280 pixels wide, to file.
func screenshot(t testing.TB, ctx context.Context, eval func(string) int, file string) {
	t.Helper()
	height := eval(`document.documentElement.scrollHeight`)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, int64(height))); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote the page's screenshot to %s", file)
}

// count is the number of the page's elements that match the CSS selector.
func count(eval func(string) int, selector string) int {
	return eval("document.querySelectorAll(" + strconv.Quote(selector) + ").length")
}

// checkKindFilter unticks each kind in turn: only the other kinds'
// findings stay visible, and all of them come back when it is ticked again.
func checkKindFilter(t testing.TB, ctx context.Context, page string, eval func(string) int) {
	t.Helper()
	for _, kind := range []string{"MOR", "MN", "NI"} {
		box := fmt.Sprintf(`#filters input.kind-filter[value='%s']`, kind)
		if count(eval, box) == 0 {
			continue // no finding, no filters
		}
		all := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`)
		others := count(eval, fmt.Sprintf(`#findings article.finding:not([data-kind='%s'])`, kind))
		if err := chromedp.Do(ctx, chromedp.Click(box)); err != nil {
			t.Fatalf("clicking %s: %v", box, err)
		}
		if n := count(eval, fmt.Sprintf(`#findings article.finding[data-kind='%s']:not([hidden])`, kind)); n != 0 {
			t.Errorf("%s: %d %s findings still visible with %s unticked", page, n, kind, kind)
		}
		if n := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`); n != others {
			t.Errorf("%s: %d findings visible with %s unticked, want the %d of the other kind", page, n, kind, others)
		}
		if err := chromedp.Do(ctx, chromedp.Click(box)); err != nil {
			t.Fatalf("clicking %s: %v", box, err)
		}
		if n := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`); n != all {
			t.Errorf("%s: %d findings visible with %s ticked again, want %d", page, n, kind, all)
		}
	}
}

// checkResourceFilter types the first finding's producer into the
// resource box: the findings that name it stay, the others go, and
// clearing the box shows all again.
func checkResourceFilter(t testing.TB, ctx context.Context, page string, eval func(string) int, findings int) {
	t.Helper()
	if findings == 0 {
		return
	}
	ref, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#findings article.finding").dataset.resources.split("\n")[0]`))
	if err != nil {
		t.Fatal(err)
	}
	naming := eval(fmt.Sprintf(`Array.from(document.querySelectorAll("#findings article.finding")).filter(f => f.dataset.resources.includes(%q)).length`, ref))
	if err := chromedp.Do(ctx, chromedp.SendKeys("#resource-filter", ref)); err != nil {
		t.Fatalf("typing in the resource filter: %v", err)
	}
	if n := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`); n != naming || n == 0 {
		t.Errorf("%s: %d findings visible for the resource %q, want the %d that name it", page, n, ref, naming)
	}
	// No resource names this: nothing is left.
	if err := chromedp.Do(ctx, chromedp.SendKeys("#resource-filter", "~no such resource~")); err != nil {
		t.Fatal(err)
	}
	if n := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`); n != 0 {
		t.Errorf("%s: %d findings visible for a resource no finding names", page, n)
	}
	clear := `(() => { const b = document.getElementById("resource-filter"); b.value = ""; b.dispatchEvent(new Event("input")); return 0 })()`
	eval(clear)
	if n := eval(`document.querySelectorAll("#findings article.finding:not([hidden])").length`); n != findings {
		t.Errorf("%s: %d findings visible with the resource box cleared, want %d", page, n, findings)
	}
}
