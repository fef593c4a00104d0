// Command mockd serves the agent platform mock: the runtime, builder and
// messaging families under one address and its control plane under
// /_mock.
//
//	mockd [serve] [flags]        serve (the default command)
//	mockd validate [FILE...]     check scenario files
//	mockd scenario [default]     print the built-in scenario
//	mockd healthcheck [--addr]   exit 0 when the mockd at --addr is healthy
//	mockd repair --data FILE     move a data file's damaged records aside
//	mockd coverage [--url URL] [FILE...]  print (and gate on) the API coverage report
//	mockd version                print the version
//	mockd help [COMMAND]         show help
//
// Flags may come before or after the command; each has an environment
// variable. `mockd --help` lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv, nil))
}

// invocation is what a command runs with.
type invocation struct {
	// ctx ending stops a server as a first SIGTERM would (tests use it).
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// ready is called with the bound address once the world is loaded.
	ready func(addr string)
	// starting is called with the bound address before the world loads.
	starting func(addr string)
}

// command is one subcommand of mockd.
type command struct {
	name    string
	args    string // the synopsis after the name
	summary string
	help    string   // what the command does, in more words
	flags   []string // the flags it takes
	maxArgs int      // -1: any number
	run     func(inv *invocation, o *options, args []string) int
}

// serveFlags are serve's flags: all but those of one other command.
var serveFlags = func() []string {
	var names []string
	for _, s := range flagSpecs {
		if s.only == "" {
			names = append(names, s.name)
		}
	}
	return names
}()

// commands are mockd's subcommands, in help order.
var commands = []*command{
	{name: "serve", args: "[flags]", summary: "serve the mock (the default command)",
		help: "serve serves the mock until SIGTERM or SIGINT, with the built-in scenario unless\n" +
			"--scenario names others, and prints its base addresses.",
		flags: serveFlags, run: cmdServe},
	{name: "validate", args: "[FILE...]", summary: "check scenario files (file:line:column: message)",
		help: "validate checks scenario files as serve would load them, printing FILE: ok for a\n" +
			"good file and file:line:column: message for each problem of a bad one; it exits\n" +
			"1 when any file has a problem. With no FILE it checks the --scenario files.",
		flags: []string{"scenario"}, maxArgs: -1, run: cmdValidate},
	{name: "scenario", args: "[default]", summary: "print the built-in scenario (YAML)",
		help: "scenario prints the built-in scenario, the one serve uses without --scenario, as\n" +
			"YAML: a start for a scenario of your own. --scenario default names it too, and a\n" +
			"file without accounts (a layer) goes on top of it (docs/scenarios.md#layers).",
		maxArgs: 1, run: cmdScenario},
	{name: "healthcheck", args: "[--addr HOST:PORT]", summary: "exit 0 when the mockd at --addr is healthy",
		help: "healthcheck asks the mockd at --addr for GET /_mock/health and exits 0 when it\n" +
			"answers 200, 1 otherwise (the container's HEALTHCHECK; it never starts a server).\n" +
			"An unspecified host (0.0.0.0, ::) is checked on 127.0.0.1.",
		flags: []string{"addr"}, run: cmdHealthcheck},
	{name: "repair", args: "--data FILE", summary: "move a data file's damaged records aside",
		help: "repair checks every record of the data file, as serve does before it starts. When\n" +
			"some are damaged, it moves them, with every damaged byte, into FILE.damaged (one\n" +
			"JSON line each: offset, key, reason, value), keeps the rest, rebuilds lost\n" +
			"indexes, prints what it did and exits 0; serve then starts. Stop mockd first.",
		flags: []string{"data"}, run: cmdRepair},
	{name: "coverage", args: "[--url URL] [FILE...]", summary: "print the API coverage report; gate CI on it",
		help: "coverage reads the API coverage report (docs/coverage.md) of the running mockd at\n" +
			"--url and of the JSON reports named (GET /_mock/coverage saved, one per CI shard),\n" +
			"adds them up, prints the sum (--format) and exits 1 when it misses a --min-* share\n" +
			"or a --require-transition, or a report cannot be read.",
		flags:   []string{"url", "format", "control-token", "min-operations", "min-statuses", "min-codes", "min-transitions", "min-clock-events", "require-transition"},
		maxArgs: -1, run: cmdCoverage},
	{name: "version", summary: "print mockd's version",
		help: "version prints mockd's version, the commit it was built from and the Go version.",
		run:  cmdVersion},
}

func (c *command) synopsis() string { return strings.TrimSpace("mockd " + c.name + " " + c.args) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is mockd: it returns the exit code (0 done, 1 failed, 2 misused).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, ready func(addr string)) int {
	return runInvocation(&invocation{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv, ready: ready}, args)
}

func runInvocation(inv *invocation, args []string) int {
	stdout, stderr, getenv := inv.stdout, inv.stderr, inv.getenv
	o := &options{}
	fs, err := newFlagSet(o, stderr, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "mockd:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			mainHelp(stdout)
			return 0
		}
		flagHint(stderr, err, serveFlags)
		shortUsage(stderr)
		return 2
	}
	rest := fs.Args()
	cmd := lookup("serve")
	if len(rest) > 0 {
		if rest[0] == "help" {
			return cmdHelp(stdout, stderr, rest[1:])
		}
		cmd = lookup(rest[0])
		if cmd == nil {
			unknownCommand(stderr, rest[0])
			return 2
		}
		rest = rest[1:]
	}
	pos, err := parseArgs(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandHelp(stdout, cmd)
			return 0
		}
		flagHint(stderr, err, cmd.flags)
		fmt.Fprintf(stderr, "usage: %s\nRun 'mockd %s --help' for its flags.\n", cmd.synopsis(), cmd.name)
		return 2
	}
	var foreign []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(cmd.flags, f.Name) {
			foreign = append(foreign, "--"+f.Name)
		}
	})
	if len(foreign) > 0 {
		fmt.Fprintf(stderr, "mockd %s: %s does not apply to %s\nusage: %s\n",
			cmd.name, strings.Join(foreign, ", "), cmd.name, cmd.synopsis())
		return 2
	}
	if cmd.maxArgs >= 0 && len(pos) > cmd.maxArgs {
		fmt.Fprintf(stderr, "mockd %s: unexpected argument %q%s\nusage: %s\n",
			cmd.name, pos[0], fileHint(pos[0]), cmd.synopsis())
		return 2
	}
	applyListEnv(fs, o, getenv)
	return cmd.run(inv, o, pos)
}

// mainHelp is `mockd --help`.
func mainHelp(w io.Writer) {
	fmt.Fprint(w, "mockd serves a mock of the agent platform API: the runtime, builder and\n"+
		"messaging families under one address, and its control plane under /_mock.\n\n")
	commandList(w)
	fmt.Fprint(w, "\nFlags may come before or after the command; each has an environment variable.\n"+
		"'mockd help COMMAND' shows the flags of the others.\n\nFlags of serve:\n")
	printFlags(w, serveFlags)
}

func commandList(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.synopsis(), c.summary)
	}
	fmt.Fprintf(tw, "  %s\t%s\n", "mockd help [COMMAND]", "show a command's help")
	_ = tw.Flush()
}

func shortUsage(w io.Writer) {
	commandList(w)
	fmt.Fprintln(w, "Run 'mockd --help' for the flags.")
}

// commandHelp is `mockd COMMAND --help` and `mockd help COMMAND`.
func commandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis(), c.help)
	if len(c.flags) > 0 {
		fmt.Fprintln(w, "\nFlags (each may also come before the command):")
		printFlags(w, c.flags)
	}
}

// cmdHelp is `mockd help [COMMAND]`.
func cmdHelp(stdout, stderr io.Writer, args []string) int {
	switch {
	case len(args) == 0:
		mainHelp(stdout)
		return 0
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: mockd help [COMMAND]")
		return 2
	}
	c := lookup(args[0])
	if c == nil {
		unknownCommand(stderr, args[0])
		return 2
	}
	commandHelp(stdout, c)
	return 0
}

// unknownCommand reports a word that is no command, suggesting the closest.
func unknownCommand(w io.Writer, name string) {
	fmt.Fprintf(w, "mockd: unknown command %q", name)
	best, dist := "", 3
	for _, c := range append(slices.Clone(commands), &command{name: "help"}) {
		if d := editDistance(name, c.name); d < dist {
			best, dist = c.name, d
		}
	}
	switch {
	case best != "":
		fmt.Fprintf(w, "; did you mean %q?\n", best)
	default:
		fmt.Fprintf(w, "%s\n", fileHint(name))
	}
	shortUsage(w)
}

// flagHint suggests the closest flag name after an undefined flag.
func flagHint(w io.Writer, err error, names []string) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return
	}
	name = strings.TrimLeft(name, "-")
	best, dist := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < dist {
			best, dist = n, d
		}
	}
	if best != "" {
		fmt.Fprintf(w, "mockd: did you mean --%s?\n", best)
	}
}

func fileHint(arg string) string {
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml", ".json":
		return fmt.Sprintf(" (to serve a scenario: mockd --scenario %s; to check it: mockd validate %s)", arg, arg)
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
