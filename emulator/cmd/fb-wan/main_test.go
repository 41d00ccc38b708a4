package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is written by run's goroutine while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "links.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const loopbackLink = `{"links":[{"id":"x-y/0",
  "a":{"listen":"127.77.20.1:40001","peer":"127.77.20.2:51820"},
  "b":{"listen":"127.77.20.3:40001","peer":"127.77.20.4:51820"},
  "ab":{"delayMs":5},"ba":{"delayMs":5}}]}`

func TestStartsReportsReadyAndStopsCleanly(t *testing.T) {
	control := filepath.Join(t.TempDir(), "control.sock")
	stop := make(chan os.Signal, 1)
	var stdout, stderr lockedBuffer
	code := make(chan int, 1)
	args := []string{"-config", writeConfig(t, loopbackLink), "-control", control}
	go func() { code <- run(args, &stdout, &stderr, stop) }()

	for deadline := time.Now().Add(5 * time.Second); stdout.String() != readyLine+"\n"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no ready line; stdout %q stderr %q", stdout.String(), stderr.String())
		}
	}
	conn, err := net.Dial("unix", control)
	if err != nil {
		t.Fatalf("ready, but the control socket does not answer: %v", err)
	}
	conn.Close()

	stop <- os.Interrupt
	if c := <-code; c != 0 {
		t.Errorf("exit code %d after a stop signal; stderr %q", c, stderr.String())
	}
	if _, err := os.Stat(control); !os.IsNotExist(err) {
		t.Errorf("control socket left behind: %v", err)
	}
	// Its sockets are closed: the same addresses can be bound again.
	again, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 77, 20, 1), Port: 40001})
	if err != nil {
		t.Errorf("relay socket still bound after stop: %v", err)
	} else {
		again.Close()
	}
}

func TestFailsWithAClearMessage(t *testing.T) {
	badDelay := strings.Replace(loopbackLink, `"ab":{"delayMs":5}`, `"ab":{"delayMs":-5}`, 1)
	unbindable := strings.Replace(loopbackLink, "127.77.20.3:40001", "192.0.2.1:40001", 1)
	cases := []struct {
		name string
		args func(control string) []string
		code int
		want string
	}{
		{"no flags", func(string) []string { return nil }, 2, "give both -config"},
		{"missing config file", func(c string) []string { return []string{"-config", "/nonexistent/links.json", "-control", c} }, 2, "no such file"},
		{"bad config", func(c string) []string { return []string{"-config", writeConfig(t, badDelay), "-control", c} }, 2,
			"links[0].ab.delayMs: must be >= 0"},
		{"unbindable address", func(c string) []string { return []string{"-config", writeConfig(t, unbindable), "-control", c} }, 1,
			"links[0].b.listen: cannot bind 192.0.2.1:40001"},
		{"control socket in a missing directory", func(string) []string {
			return []string{"-config", writeConfig(t, loopbackLink), "-control", "/nonexistent/dir/c.sock"}
		}, 1, "control socket /nonexistent/dir/c.sock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr lockedBuffer
			got := run(c.args(filepath.Join(t.TempDir(), "c.sock")), &stdout, &stderr, make(chan os.Signal))
			if got != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", got, stderr.String(), c.code, c.want)
			}
			if strings.Contains(stdout.String(), readyLine) {
				t.Error("printed the ready line although it failed")
			}
		})
	}
}
