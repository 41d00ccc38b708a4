// fb-wan is the local fleet's WAN link emulator. It runs inside the WAN namespace:
//
//	fb-wan -config links.json -control /path/to/control.sock
//
// It prints "fb-wan ready" on stdout once every socket is bound and the control socket listens,
// and exits 0 on SIGTERM or SIGINT after closing its sockets and removing the control socket.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"fragbench/emulator/relay"
)

const readyLine = "fb-wan ready"

func main() {
	// Two Ps: the relay's event loop keeps one while it waits for packets (see relay/loop_linux.go);
	// the control socket runs on the other. GOMAXPROCS in the environment still wins.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, stop))
}

// run starts the emulator and serves until stop receives; it returns the exit code.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	flags := flag.NewFlagSet("fb-wan", flag.ContinueOnError)
	flags.SetOutput(stderr)
	configPath := flags.String("config", "", "the links to relay, a JSON file")
	controlPath := flags.String("control", "", "unix socket path for the control protocol")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *configPath == "" || *controlPath == "" {
		fmt.Fprintln(stderr, "fb-wan: give both -config <file.json> and -control <socket path>")
		return 2
	}
	cfg, err := relay.LoadConfig(*configPath)
	if err != nil {
		fmt.Fprintf(stderr, "fb-wan: bad config %s:\n  %s\n", *configPath, strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return 2
	}
	r, err := relay.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "fb-wan: %v\n", err)
		return 1
	}
	defer r.Close()
	control, err := relay.ListenControl(*controlPath, r)
	if err != nil {
		fmt.Fprintf(stderr, "fb-wan: %v\n", err)
		return 1
	}
	defer control.Close()
	fmt.Fprintf(stderr, "fb-wan: relaying %d links, control socket %s\n", len(cfg.Links), *controlPath)
	fmt.Fprintln(stdout, readyLine)
	sig := <-stop
	fmt.Fprintf(stderr, "fb-wan: %v, stopping\n", sig)
	return 0
}
