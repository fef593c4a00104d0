// Package browsertest drives mockd's web console in headless Chromium
// (chromedp), as a module of its own to keep the driver out of the main
// module's dependencies (docs/console.md).
package browsertest
