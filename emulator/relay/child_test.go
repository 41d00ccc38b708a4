package relay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// childRelayEnv carries a child relay's config (JSON); childPriorityEnv its SCHED_FIFO priority.
const (
	childRelayEnv    = "FB_WAN_TEST_CHILD_RELAY"
	childPriorityEnv = "FB_WAN_TEST_CHILD_PRIORITY"
)

// childRelay is a relay in a process of its own, as fb-wan runs on the fleet: its CPU time is
// the relay's alone, and at real-time priority it is scheduled ahead of the test's senders and
// receivers as fb-wan is ahead of the fleet's clients, rather than sharing a policy with them.
type childRelay struct {
	cmd     *exec.Cmd
	toChild io.WriteCloser
	answers *bufio.Scanner
}

// startChildRelay starts the relay of cfg in a child process, at SCHED_FIFO priority when
// priority > 0 (which needs root, as the fleet does), and waits until it answers.
func startChildRelay(t *testing.T, cfg *Config, priority int) *childRelay {
	t.Helper()
	encoded, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRelayEnv+"="+string(encoded),
		childPriorityEnv+"="+strconv.Itoa(priority), "GOMAXPROCS=2")
	cmd.Stderr = os.Stderr
	toChild, _ := cmd.StdinPipe()
	fromChild, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &childRelay{cmd: cmd, toChild: toChild, answers: bufio.NewScanner(fromChild)}
	c.answers.Buffer(make([]byte, 1<<20), 1<<20)
	t.Cleanup(func() {
		toChild.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("child relay: %v", err)
		}
	})
	c.ask(t, "cpu") // up once it answers
	return c
}

// ask sends one request line and returns the answer after its "name " prefix.
func (c *childRelay) ask(t *testing.T, request string) string {
	t.Helper()
	fmt.Fprintln(c.toChild, request)
	for c.answers.Scan() {
		if answer, ok := strings.CutPrefix(c.answers.Text(), request+" "); ok {
			return answer
		}
	}
	t.Fatalf("child relay ended before answering %q: %v", request, c.answers.Err())
	return ""
}

// cpuNs is the child's user+system CPU time so far.
func (c *childRelay) cpuNs(t *testing.T) int64 {
	ns, err := strconv.ParseInt(c.ask(t, "cpu"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// stats is the child relay's Stats().
func (c *childRelay) stats(t *testing.T) []LinkStats {
	var out []LinkStats
	if err := json.Unmarshal([]byte(c.ask(t, "stats")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// runChildRelayIfAsked is the child's side, called from TestMain: with childRelayEnv set it
// relays that config, answering "cpu" and "stats" lines on stdin, until stdin closes, and
// reports whether it ran (the process then exits instead of running tests).
func runChildRelayIfAsked() bool {
	encoded := os.Getenv(childRelayEnv)
	if encoded == "" {
		return false
	}
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "child relay: %v\n", err)
		os.Exit(2)
	}
	if priority, _ := strconv.Atoi(os.Getenv(childPriorityEnv)); priority > 0 {
		if err := useRealtimePriority(int32(priority)); err != nil {
			fail(fmt.Errorf("real-time priority %d (run the tests as root, as the fleet runs fb-wan): %w", priority, err))
		}
	}
	cfg, err := ParseConfig([]byte(encoded))
	if err != nil {
		fail(err)
	}
	r, err := New(cfg)
	if err != nil {
		fail(err)
	}
	defer r.Close()
	requests := bufio.NewScanner(os.Stdin)
	for requests.Scan() {
		switch requests.Text() {
		case "cpu":
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			fmt.Printf("cpu %d\n", ru.Utime.Nano()+ru.Stime.Nano())
		case "stats":
			encoded, _ := json.Marshal(r.Stats())
			fmt.Printf("stats %s\n", encoded)
		}
	}
	return true
}
