// Package browsertest drives mockd's web console in a real headless
// browser (Chromium, through chromedp). It is a module of its own so that
// the browser driver stays out of the main module's dependencies; it holds
// tests only (go test in this directory; docs/console.md).
package browsertest
