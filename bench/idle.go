package main

// The CPUs' idle state during a run (-idle). By default (os) idle CPUs do
// what the machine's kernel does; -idle poll holds the kernel's CPU
// latency request at zero (PM QoS, /dev/cpu_dma_latency) for the run, so
// that idle CPUs poll instead of halting.
//
// Why the setting exists: in the closed loop a server slower than the
// bare one leaves wrk idle between its answers, so each answer wakes
// wrk's CPU, and on a virtual machine whose idle CPUs halt that wake-up
// goes through the hypervisor and is paid in the answering server's
// kernel time. On the Firecracker machine of docs/performance.md mockd's
// kernel time per request exceeded the bare server's by 2-6 µs, and so
// did the calibration rows' busy servers', more with more busy work;
// polling, it was the same for every server. Polling also slowed the bare
// server there (16-18 to 17-20 µs of CPU per answer), so the ratios of
// one machine read higher polling than not, while the busy work a load
// scores as stays about the same (docs/performance.md, "Idle CPUs
// polling"). The report names the setting; compare ratios only between
// runs of the same one.

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// qosPath is the kernel's CPU latency request (PM QoS): while a process
// holds it open with a value written, idle CPUs keep to the idle states
// that wake within that many microseconds; 0 leaves only polling.
const qosPath = "/dev/cpu_dma_latency"

// idleHold is the run's hold on the CPUs' idle state.
type idleHold struct {
	f *os.File // nil: the OS's idle states
	// state says what the run's CPUs did when idle, for the report.
	state string
}

// holdIdle applies the -idle setting: "poll" holds the latency request at
// zero until release (on a machine where that cannot be done, the run
// goes on with the OS's idle states and says why); "os" leaves them.
func holdIdle(mode string) *idleHold {
	driver := "unknown"
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpuidle/current_driver"); err == nil {
		driver = strings.TrimSpace(string(b))
	}
	if mode == "os" {
		return &idleHold{state: fmt.Sprintf("the OS's idle states (cpuidle driver %s; -idle os)", driver)}
	}
	f, err := os.OpenFile(qosPath, os.O_WRONLY, 0)
	if err == nil {
		// The request is a 32-bit integer in the machine's byte order; 0
		// reads the same in either.
		if _, err = f.Write([]byte{0, 0, 0, 0}); err != nil {
			_ = f.Close() // the write's error is the one to report
		}
	}
	if err != nil {
		why := err.Error()
		if errors.Is(err, os.ErrPermission) {
			why = qosPath + ": permission denied (run as root to hold it)"
		} else if errors.Is(err, os.ErrNotExist) {
			why = qosPath + " does not exist"
		}
		return &idleHold{state: fmt.Sprintf("the OS's idle states (cpuidle driver %s): polling not held, %s", driver, why)}
	}
	return &idleHold{f: f, state: fmt.Sprintf("polling (CPU latency request 0 held on %s; cpuidle driver %s)", qosPath, driver)}
}

// polling reports whether the run holds the CPUs polling.
func (h *idleHold) polling() bool { return h.f != nil }

// release gives the latency request back: closing the file ends it.
func (h *idleHold) release() {
	if h.f != nil {
		_ = h.f.Close() // a device file: nothing was buffered to lose
		h.f = nil
	}
}
