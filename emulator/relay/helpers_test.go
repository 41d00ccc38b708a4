package relay

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test links live on loopback, 127.77.<net>.x, each test on its own <net> so tests never share
// an address (the jest tests use 127.78.x.x).

// testLink is one relayed link with a node socket at each end.
type testLink struct {
	id string
	// nodeA and nodeB stand for the two nodes' WireGuard sockets.
	nodeA, nodeB *net.UDPConn
	// viaA is where node A sends (the relay's a.listen); viaB is where node B sends.
	viaA, viaB netip.AddrPort
}

func ptr[T any](v T) *T { return &v }

func shaping(delayMs, rateMbps, lossPercent float64) Shaping {
	s := Shaping{DelayMs: delayMs, LossPercent: lossPercent}
	if rateMbps > 0 {
		s.RateMbps = &rateMbps
	}
	return s
}

// startRelay starts a relay with one link per pair of shapings (ab, ba) on 127.77.<net>.x.
func startRelay(t *testing.T, net8 int, shapings ...[2]Shaping) (*Relay, []*testLink) {
	t.Helper()
	cfg, links := testLinks(t, net8, shapings...)
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("starting relay: %v", err)
	}
	t.Cleanup(r.Close)
	return r, links
}

// testLinks makes a relay config with a link per shaping pair, and the test's node sockets at
// each link's ends, on 127.77.net8.0/24.
func testLinks(t *testing.T, net8 int, shapings ...[2]Shaping) (*Config, []*testLink) {
	t.Helper()
	var cfg Config
	var links []*testLink
	for i, s := range shapings {
		tl := &testLink{id: fmt.Sprintf("l%d/0", i)}
		tl.nodeA = listenUDP(t, fmt.Sprintf("127.77.%d.%d:0", net8, 100+i))
		tl.nodeB = listenUDP(t, fmt.Sprintf("127.77.%d.%d:0", net8, 200+i))
		tl.viaA = netip.MustParseAddrPort(fmt.Sprintf("127.77.%d.%d:40001", net8, 1+i))
		tl.viaB = netip.MustParseAddrPort(fmt.Sprintf("127.77.%d.%d:40002", net8, 1+i))
		cfg.Links = append(cfg.Links, LinkConfig{
			ID: tl.id,
			A:  EndConfig{Listen: tl.viaA.String(), Peer: tl.nodeA.LocalAddr().String()},
			B:  EndConfig{Listen: tl.viaB.String(), Peer: tl.nodeB.LocalAddr().String()},
			AB: s[0], BA: s[1],
		})
		links = append(links, tl)
	}
	return &cfg, links
}

func listenUDP(t *testing.T, addr string) *net.UDPConn {
	t.Helper()
	conn, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	conn.SetReadBuffer(4 << 20)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// stamp writes a sequence number and the send time into the start of a datagram.
func stamp(buf []byte, seq uint64) {
	binary.LittleEndian.PutUint64(buf, seq)
	binary.LittleEndian.PutUint64(buf[8:], uint64(now()))
}

func unstamp(buf []byte) (seq uint64, sent int64) {
	return binary.LittleEndian.Uint64(buf), int64(binary.LittleEndian.Uint64(buf[8:]))
}

// arrival is a datagram received by a test node.
type arrival struct {
	seq        uint64
	sent, recv int64
	size       int
}

// collect reads datagrams on conn until it has been idle for idle or the deadline has passed.
func collect(conn *net.UDPConn, deadline time.Time, idle time.Duration) []arrival {
	var out []arrival
	buf := make([]byte, 65536)
	for {
		until := time.Now().Add(idle)
		if deadline.Before(until) {
			until = deadline
		}
		conn.SetReadDeadline(until)
		n, _, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return out
		}
		seq, sent := unstamp(buf)
		out = append(out, arrival{seq: seq, sent: sent, recv: now(), size: n})
	}
}

// echo sends back whatever conn receives until conn is closed.
func echo(conn *net.UDPConn) {
	buf := make([]byte, 65536)
	for {
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		conn.WriteToUDPAddrPort(buf[:n], from)
	}
}

// send writes count datagrams of size bytes from conn to to, perTick of them every tick.
func send(t *testing.T, conn *net.UDPConn, to netip.AddrPort, count, size, perTick int, tick time.Duration) {
	t.Helper()
	buf := make([]byte, size)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for seq := 0; seq < count; seq++ {
		if seq > 0 && seq%perTick == 0 {
			<-ticker.C
		}
		stamp(buf, uint64(seq))
		if _, err := conn.WriteToUDPAddrPort(buf, to); err != nil {
			t.Errorf("send: %v", err)
			return
		}
	}
}

// pingStream sends a stamped datagram from node A every interval for duration while node B
// echoes, and returns each round trip keyed by its send time. It is safe to call on several
// links at once.
func pingStream(tl *testLink, interval, duration, maxRTT time.Duration) []arrival {
	go echo(tl.nodeB)
	var (
		wg      sync.WaitGroup
		replies []arrival
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		replies = collect(tl.nodeA, time.Now().Add(duration+maxRTT+300*time.Millisecond), time.Minute)
	}()
	buf := make([]byte, 200)
	ticker := time.NewTicker(interval)
	for seq, end := uint64(0), time.Now().Add(duration); time.Now().Before(end); seq++ {
		stamp(buf, seq)
		tl.nodeA.WriteToUDPAddrPort(buf, tl.viaA)
		<-ticker.C
	}
	ticker.Stop()
	wg.Wait()
	return replies
}

// rttsMs turns arrivals into round-trip (or one-way) times in milliseconds.
func rttsMs(arrivals []arrival) []float64 {
	out := make([]float64, len(arrivals))
	for i, a := range arrivals {
		out[i] = float64(a.recv-a.sent) / 1e6
	}
	return out
}

// percentile of values (0..100), nearest rank.
func percentile(values []float64, p float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(timeout); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hostCPU is the host's CPU time so far from /proc/stat's first line, in clock ticks: all of it
// and what the hypervisor stole (time a vCPU wanted to run and was not given).
type hostCPU struct{ total, steal uint64 }

func readHostCPU(t *testing.T) hostCPU {
	t.Helper()
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	fields := strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal [guest guest_nice, counted in user]
	if len(fields) < 9 || fields[0] != "cpu" {
		t.Fatalf("/proc/stat: unexpected first line %q", line)
	}
	var c hostCPU
	for i, f := range fields[1:9] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("/proc/stat: %q: %v", line, err)
		}
		c.total += v
		if i == 7 {
			c.steal = v
		}
	}
	return c
}

// stolenShareSince is the share of CPU time stolen between before and c.
func (c hostCPU) stolenShareSince(before hostCPU) float64 {
	if c.total == before.total {
		return 0
	}
	return float64(c.steal-before.steal) / float64(c.total-before.total)
}
