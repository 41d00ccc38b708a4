package relay

// packet is a datagram waiting in a direction until it is due to leave.
type packet struct {
	data []byte
	// due is when the packet leaves, on the relay's clock (see now).
	due int64
}

// packetQueue is a FIFO ring buffer; it grows as needed and keeps its storage, so a busy
// direction does not allocate per packet.
type packetQueue struct {
	items []packet
	head  int
	n     int
}

func (q *packetQueue) len() int { return q.n }

func (q *packetQueue) push(p packet) {
	if q.n == len(q.items) {
		q.grow()
	}
	q.items[(q.head+q.n)%len(q.items)] = p
	q.n++
}

// front returns the oldest packet; the queue must not be empty.
func (q *packetQueue) front() *packet { return &q.items[q.head] }

func (q *packetQueue) pop() packet {
	p := q.items[q.head]
	q.items[q.head] = packet{}
	q.head = (q.head + 1) % len(q.items)
	q.n--
	return p
}

func (q *packetQueue) grow() {
	items := make([]packet, max(64, 2*len(q.items)))
	for i := 0; i < q.n; i++ {
		items[i] = q.items[(q.head+i)%len(q.items)]
	}
	q.items = items
	q.head = 0
}
