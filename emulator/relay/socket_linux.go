package relay

import (
	"net/netip"
	"os"
	"syscall"
	"unsafe"
)

// udpSocket is a bound, non-blocking UDP socket that the event loop reads and writes with plain
// system calls, outside Go's network poller (loop_linux.go says why).
type udpSocket struct {
	fd int
}

// sockaddr is a socket address in the kernel's own layout, built once per peer so that sending
// and receiving convert nothing and allocate nothing.
type sockaddr struct {
	raw syscall.RawSockaddrAny
	len uint32
}

func sockaddrOf(ap netip.AddrPort) sockaddr {
	var s sockaddr
	port := (*[2]byte)(unsafe.Pointer(&s.raw.Addr.Data[0]))
	// Ports are in network byte order in both families' layouts, right after the family.
	if ap.Addr().Is4() {
		in4 := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&s.raw))
		in4.Family = syscall.AF_INET
		in4.Addr = ap.Addr().As4()
		s.len = syscall.SizeofSockaddrInet4
	} else {
		in6 := (*syscall.RawSockaddrInet6)(unsafe.Pointer(&s.raw))
		in6.Family = syscall.AF_INET6
		in6.Addr = ap.Addr().As16()
		s.len = syscall.SizeofSockaddrInet6
	}
	port[0], port[1] = byte(ap.Port()>>8), byte(ap.Port())
	return s
}

// addrPort reads a received source address back (unmapped, as the config's peers are).
func (s *sockaddr) addrPort() netip.AddrPort {
	port := (*[2]byte)(unsafe.Pointer(&s.raw.Addr.Data[0]))
	p := uint16(port[0])<<8 | uint16(port[1])
	switch s.raw.Addr.Family {
	case syscall.AF_INET:
		in4 := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&s.raw))
		return netip.AddrPortFrom(netip.AddrFrom4(in4.Addr), p)
	case syscall.AF_INET6:
		in6 := (*syscall.RawSockaddrInet6)(unsafe.Pointer(&s.raw))
		return netip.AddrPortFrom(netip.AddrFrom16(in6.Addr).Unmap(), p)
	}
	return netip.AddrPort{}
}

// openUDP binds a non-blocking UDP socket at the address, with socket buffers raised past the
// namespace's rmem_max/wmem_max where allowed (we run as root), so bursts queue in the relay, where
// they are shaped and counted, rather than being dropped unseen by a full socket buffer.
func openUDP(at netip.AddrPort) (*udpSocket, error) {
	family, bindAddr := syscall.AF_INET, syscall.Sockaddr(nil)
	if at.Addr().Is4() {
		bindAddr = &syscall.SockaddrInet4{Port: int(at.Port()), Addr: at.Addr().As4()}
	} else {
		family = syscall.AF_INET6
		bindAddr = &syscall.SockaddrInet6{Port: int(at.Port()), Addr: at.Addr().As16()}
	}
	fd, err := syscall.Socket(family, syscall.SOCK_DGRAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	for _, opt := range [][2]int{{syscall.SO_RCVBUFFORCE, syscall.SO_RCVBUF}, {syscall.SO_SNDBUFFORCE, syscall.SO_SNDBUF}} {
		if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, opt[0], socketBufferBytes) != nil {
			syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, opt[1], socketBufferBytes)
		}
	}
	if err := syscall.Bind(fd, bindAddr); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &udpSocket{fd: fd}, nil
}

// send writes one datagram; a full socket buffer or an unreachable peer is an error, not a wait.
func (s *udpSocket) send(data []byte, to *sockaddr) syscall.Errno {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(s.fd), uintptr(p), uintptr(len(data)),
		0, uintptr(unsafe.Pointer(&to.raw)), uintptr(to.len))
	return errno
}

func (s *udpSocket) close() { syscall.Close(s.fd) }

// recvBatch is what one recvmmsg call fills: a datagram buffer and source address per slot.
type recvBatch struct {
	bufs  [recvBatchLen][]byte
	from  [recvBatchLen]sockaddr
	iovs  [recvBatchLen]syscall.Iovec
	msgs  [recvBatchLen]mmsghdr
	sizes [recvBatchLen]int
}

// recvBatchLen is how many datagrams one call takes at most.
const recvBatchLen = 8

// mmsghdr is the kernel's struct mmsghdr.
type mmsghdr struct {
	hdr syscall.Msghdr
	len uint32
	_   [4]byte
}

func newRecvBatch() *recvBatch {
	b := &recvBatch{}
	for i := range b.bufs {
		b.bufs[i] = make([]byte, 64<<10)
		b.iovs[i].Base = &b.bufs[i][0]
		b.iovs[i].SetLen(len(b.bufs[i]))
	}
	return b
}

// recvMany reads up to recvBatchLen waiting datagrams in one call: with one waiting (the usual
// case) that is one call where recvfrom needed a second one that returned EAGAIN (measured: 18.7
// -> 14.5 us of relay CPU per datagram with the relay sharing a CPU, cpu_bench_test.go; the
// unshared figure was too noisy to tell). It returns how many
// it read (their sizes and sources are in b), or EAGAIN when none was waiting.
func (s *udpSocket) recvMany(b *recvBatch) (int, syscall.Errno) {
	for i := range b.msgs {
		b.from[i].len = uint32(unsafe.Sizeof(b.from[i].raw))
		b.msgs[i] = mmsghdr{hdr: syscall.Msghdr{
			Name: (*byte)(unsafe.Pointer(&b.from[i].raw)), Namelen: b.from[i].len,
			Iov: &b.iovs[i], Iovlen: 1,
		}}
	}
	n, _, errno := syscall.RawSyscall6(syscall.SYS_RECVMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&b.msgs[0])),
		recvBatchLen, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	for i := range int(n) {
		b.sizes[i], b.from[i].len = int(b.msgs[i].len), b.msgs[i].hdr.Namelen
	}
	return int(n), 0
}
