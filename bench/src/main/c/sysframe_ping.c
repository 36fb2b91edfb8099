// SPDX-License-Identifier: Apache-2.0
//
// sysframe_ping: a C peer of the Java sysframe client, doing what Grout's
// ping_perf does (GR_HELLO, then COUNT synchronous GR_PING calls, or COUNT
// pipelined ones with -d) so both can be measured against the same server. The
// framing (-f) and receive (-r) strategies are selectable to compare the ones
// discussed in docs/wire-format.md, and so are the ways the Java client can wait for a
// response (-W), the CPU it runs on (-c) and pipelining (-d, -b). Every send and
// receive syscall of the timed loop is counted.
//
// Many connections (-M N, -A K): a load generator for a server's scale table.
// The process opens N connections (nonblocking connects, at most 256 of them
// being set up at a time; a full listen backlog, EAGAIN, is retried for up to
// 10 s without progress), each says GR_HELLO and then makes one GR_PING of -l
// bytes, and once all N have both answers it prints 'connected N'. In a timed
// run the first K of them are active, each keeping exactly one GR_PING in
// flight (the next one is sent when its answer came), until COUNT calls in all
// are answered; the other N-K stay idle, costing a small struct each and no
// buffer, and in no epoll set: they are polled, without waiting, before each
// run and at exit, and one the server closed ends the process with one line.
// One epoll instance over the active connections, level-triggered: a
// readiness is taken with exactly one recv() into that connection's own
// buffer and nothing more (edge-triggered would need a read until EAGAIN, a
// second recv per answer, or risk missing the rest of a large answer), and
// the interest set never changes, so no epoll_ctl per request. A request is
// one send() of a frame built once (header and payload), its id written in.
// Counted in the timed window: send() calls, recv() calls, epoll_wait()
// calls. Latency percentiles come from a fixed log-linear histogram (exact
// below 128 ns, then 64 buckets per power of two: within 1/64, reported as
// the bucket's largest value), so no memory is allocated per call. The soft
// RLIMIT_NOFILE is raised to the hard one (N + 16 descriptors must fit).
//
// Build: gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o sysframe_ping sysframe_ping.c

#define _GNU_SOURCE // RUSAGE_THREAD, sched_getcpu, CPU_SET, IOV_MAX
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define GR_HELLO 0xcafe1981u
#define GR_PING 0xcafe1987u
#define GR_PING2 0xcafe1988u
#define GR_API_MAX_MSG_LEN 131072u
#define PING2_LEN 32u
#define HELLO_VERSION_LEN 128
#define READ_AHEAD_LEN 8192 // BUFSIZ, as Grout's client uses
#define COPY_MAX 65536 // a pipelined batch up to this size is copied and sent with one send()
#define DEPTH_MAX 4096
#define SPIN_US_MAX 60000000ul
#define CPU_SAMPLE_EVERY 1024 // calls between two sched_getcpu() samples
#define WARM_UP_MS_MAX 60000ul
#define WARM_UP_CHUNK 64 // calls of -U's warm-up between two clock reads
#define LEAN_READ_AHEAD (1u << 20) // -L: read-ahead buffer
#define EXIT_USAGE 2
#define MANY_MAX 1000000ul // -M: connections
#define FD_SPARE 16 // descriptors -M needs besides its connections: stdio, the epoll instance, ...
#define SETUP_WINDOW 256 // -M: connections between their connect and their GR_PING's answer at once
#define CONNECT_WAIT_MS 10000 // -M: how long the setup may go without progress before it fails
#define EVENTS_MAX 1024 // -M: events taken per epoll_wait()

// Host byte order, natural alignment: both headers are 12 bytes, no padding.
struct req_hdr {
	uint32_t id;
	uint32_t type;
	uint32_t payload_len;
};

struct resp_hdr {
	uint32_t for_id;
	uint32_t status;
	uint32_t payload_len;
};

// How a receive waits for its data (-W).
enum wait_mode {
	WAIT_BLOCK, // blocking recv()
	WAIT_SPIN, // recv(MSG_DONTWAIT) again and again until data
	WAIT_SPIN_BLOCK, // as WAIT_SPIN for spin_us microseconds, then one blocking recv()
	WAIT_YIELD, // sched_yield() between empty recv(MSG_DONTWAIT) tries
};

struct pipeline;

struct peer {
	int fd;
	// Pipelining: sends do not block; while the socket is full, wait in poll()
	// and take the responses that come meanwhile (the server may stop reading
	// requests until its responses are read).
	struct pipeline *pipe;
	bool split; // -f split: two send() calls instead of one sendmsg()
	bool exact; // -r exact: no read-ahead buffer
	enum wait_mode wait;
	uint64_t spin_ns; // WAIT_SPIN_BLOCK: how long to spin
	// Syscalls made: send()/sendmsg() calls, recv() calls that returned data,
	// and recv(MSG_DONTWAIT) calls that found nothing (EAGAIN).
	uint64_t sends, recv_data, recv_empty, polls;
	size_t rpos, rlen; // unread bytes are rbuf[rpos..rlen)
	uint8_t rbuf[READ_AHEAD_LEN];
};

static void fail(const char *what, int err) {
	fprintf(stderr, "sysframe_ping: %s: %s\n", what, strerror(err));
	exit(1);
}

// A usage error: one line on stderr, exit code 2.
static void bad_option(char opt, const char *arg, const char *accepted) {
	fprintf(stderr, "sysframe_ping: -%c: invalid value '%s' (%s)\n", opt, arg, accepted);
	exit(EXIT_USAGE);
}

static void usage(FILE *f) {
	fprintf(f,
		"usage: sysframe_ping [-s SOCK] [-n COUNT] [-U MS] [-l LEN] [-2] [-f split|sendmsg]\n"
		"                     [-r exact|readahead] [-v API_VERSION] [-W MODE] [-c CPU]\n"
		"                     [-d DEPTH] [-b BATCH] [-L] [-w] [-R] [-j] [-M N [-A K]]\n"
		"  -s SOCK     socket path (default $GROUT_SOCK_PATH, else /run/grout.sock)\n"
		"  -n COUNT    number of timed calls (GR_PING requests in all; default 10000)\n"
		"  -U MS       untimed calls first, made as the timed ones, for MS milliseconds\n"
		"              (0..%lu, default 0), before -w's ready line; none of their\n"
		"              syscalls, CPU or latencies are reported\n"
		"  -l LEN      GR_PING payload length, 0..%u (default 0)\n"
		"  -2          send GR_PING2 with a %u-byte payload (overrides -l)\n"
		"  -f MODE     split: send(header) + send(payload); sendmsg: one sendmsg (default);\n"
		"              depth 1 only: a pipelined batch always leaves in one call (see -b)\n"
		"  -r MODE     exact: recv(header) + recv(payload); readahead: %d-byte buffer (default);\n"
		"              exact is for depth 1 only\n"
		"  -v VERSION  api_version sent in GR_HELLO (default 11)\n"
		"  -W MODE     how a receive waits: block (blocking recv, default); spin (recv with\n"
		"              MSG_DONTWAIT until data, never sleeping); spin:N (spin N microseconds,\n"
		"              0..%lu, then one blocking recv); yield (sched_yield between empty tries)\n"
		"  -c CPU      pin the process to CPU (one of its allowed CPUs) before GR_HELLO\n"
		"  -d DEPTH    requests in flight, 1..%d (default 1: one synchronous call at a time)\n"
		"  -b BATCH    1..DEPTH (default DEPTH): whenever BATCH slots are free, send BATCH\n"
		"              requests with one send() of a copy (<= %d bytes), else one sendmsg()\n"
		"              per %d iovec entries; responses are matched by for_id, in any order;\n"
		"              these sends do not block: while the socket is full, poll() and read\n"
		"              the responses that came (counted: sends include the EAGAIN ones)\n"
		"  -L          lean: no clock read per request (latency percentiles print 0), frames\n"
		"              built once, the freed slots refilled with one send() whenever answers\n"
		"              come (depth 1 too), a 1 MiB read-ahead; -W block, spin or yield only;\n"
		"              not with -b, -f split or -r exact (batch reads 0: refilled as answers come)\n"
		"  -w          after GR_HELLO print 'ready' and wait for a line on stdin; after the\n"
		"              summary stay connected until stdin is closed\n"
		"  -R          repeat: runs on command, one line of stdin each, until stdin closes:\n"
		"              N: print 'ready', wait for a line, make N timed calls, print their\n"
		"              summary; reconnect: a new connection, its GR_HELLO and -U warm-up,\n"
		"              then print 'connected' (-n COUNT is not used; implies -w)\n"
		"  -j          also print a one-line JSON summary\n"
		"  -M N        many connections, 1..%lu: open N (nonblocking connects; a full listen\n"
		"              backlog is retried for up to %d s without progress), each says GR_HELLO\n"
		"              and makes one GR_PING of LEN bytes; then print 'connected N'. The soft\n"
		"              RLIMIT_NOFILE is raised to the hard one, which must hold N + %d.\n"
		"              Runs (-n COUNT, or -R's commands) make COUNT calls in all across\n"
		"              the active connections, each with one request in flight, waiting in\n"
		"              one level-triggered epoll; -R's reconnect closes and opens all N.\n"
		"              Not with -d, -b, -L, -f split, -r exact or -W other than block\n"
		"  -A K        with -M: the first K connections are active, 0..N (default N), the\n"
		"              others idle (no buffer of their own); -A 0: no calls, the connections\n"
		"              are held until stdin closes (with -R: reconnect is the one command)\n"
		"Usage errors exit with 2, other failures with 1.\n",
		WARM_UP_MS_MAX, GR_API_MAX_MSG_LEN, PING2_LEN, READ_AHEAD_LEN, SPIN_US_MAX, DEPTH_MAX, COPY_MAX,
		IOV_MAX, MANY_MAX, CONNECT_WAIT_MS / 1000, FD_SPARE);
}

static unsigned long parse_num(const char *arg, char opt, unsigned long min, unsigned long max) {
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "sysframe_ping: -%c: invalid value '%s' (%lu..%lu)\n", opt, arg, min,
			max);
		exit(EXIT_USAGE);
	}
	return v;
}

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wait_writable(struct peer *p);

// One send() per buffer; loops because a stream socket may take only part of it.
static void send_full(struct peer *p, const void *buf, size_t len) {
	const uint8_t *b = buf;
	int flags = MSG_NOSIGNAL | (p->pipe != NULL ? MSG_DONTWAIT : 0);
	while (len > 0) {
		ssize_t n = send(p->fd, b, len, flags);
		p->sends++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (p->pipe != NULL && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				wait_writable(p);
				continue;
			}
			fail("send", errno);
		}
		b += n;
		len -= (size_t)n;
	}
}

// Header and payload in one sendmsg(), without copying them together. On a
// partial write, skip the fully written entries and trim the first remaining one.
static void sendmsg_full(struct peer *p, struct iovec *iov, size_t cnt) {
	int flags = MSG_NOSIGNAL | (p->pipe != NULL ? MSG_DONTWAIT : 0);
	while (cnt > 0) {
		struct msghdr msg = {.msg_iov = iov, .msg_iovlen = cnt};
		ssize_t n = sendmsg(p->fd, &msg, flags);
		p->sends++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (p->pipe != NULL && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				wait_writable(p);
				continue;
			}
			fail("sendmsg", errno);
		}
		size_t done = (size_t)n;
		while (cnt > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
}

// One receive of up to len bytes, waiting as -W says; returns how many came
// (at least one). EOF means the peer is gone: every caller is inside a frame.
static size_t wait_recv(struct peer *p, void *buf, size_t len) {
	uint64_t spin_end = p->wait == WAIT_SPIN_BLOCK ? now_ns() + p->spin_ns : 0;
	int flags = p->wait == WAIT_BLOCK ? 0 : MSG_DONTWAIT;
	for (;;) {
		if (p->wait == WAIT_SPIN_BLOCK && flags != 0 && now_ns() >= spin_end)
			flags = 0; // spun long enough: one blocking recv
		ssize_t n = recv(p->fd, buf, len, flags);
		if (n > 0) {
			p->recv_data++;
			return (size_t)n;
		}
		if (n == 0)
			fail("recv", ECONNRESET);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			fail("recv", errno);
		p->recv_empty++;
		if (p->wait == WAIT_YIELD)
			sched_yield();
	}
}

// recv() until len bytes have arrived.
static void recv_full(struct peer *p, void *buf, size_t len) {
	uint8_t *b = buf;
	while (len > 0) {
		size_t n = wait_recv(p, b, len);
		b += n;
		len -= n;
	}
}

// Read-ahead: move the unread bytes to the front and receive once into the
// space after them, as much as fits.
static void ra_refill(struct peer *p) {
	if (p->rpos > 0) {
		memmove(p->rbuf, p->rbuf + p->rpos, p->rlen - p->rpos);
		p->rlen -= p->rpos;
		p->rpos = 0;
	}
	p->rlen += wait_recv(p, p->rbuf + p->rlen, sizeof(p->rbuf) - p->rlen);
}

// Read-ahead: make sure a whole header is buffered, pulling as much as fits
// per recv() so that a small response (header + payload) costs one syscall.
static void ra_header(struct peer *p, struct resp_hdr *h) {
	while (p->rlen - p->rpos < sizeof(*h))
		ra_refill(p);
	memcpy(h, p->rbuf + p->rpos, sizeof(*h));
	p->rpos += sizeof(*h);
}

// Take what is already buffered, then recv the rest straight into dst: a
// large payload is not worth bouncing through the small buffer.
static void ra_payload(struct peer *p, void *dst, size_t len) {
	size_t avail = p->rlen - p->rpos;
	if (avail > len)
		avail = len;
	memcpy(dst, p->rbuf + p->rpos, avail);
	p->rpos += avail;
	if (p->rpos == p->rlen)
		p->rpos = p->rlen = 0; // empty: next recv can use the whole buffer
	if (len > avail)
		recv_full(p, (uint8_t *)dst + avail, len - avail);
}

// One request/response round trip. The response payload lands in rx, which
// holds GR_API_MAX_MSG_LEN bytes. Status and payload are left to the caller.
static void call(struct peer *p, uint32_t id, uint32_t type, const void *payload, uint32_t len,
		 struct resp_hdr *resp, void *rx) {
	struct req_hdr req = {.id = id, .type = type, .payload_len = len};

	if (p->split) {
		send_full(p, &req, sizeof(req));
		if (len > 0)
			send_full(p, payload, len);
	} else {
		struct iovec iov[2] = {
			{.iov_base = &req, .iov_len = sizeof(req)},
			{.iov_base = (void *)payload, .iov_len = len},
		};
		sendmsg_full(p, iov, len > 0 ? 2 : 1);
	}

	if (p->exact)
		recv_full(p, resp, sizeof(*resp));
	else
		ra_header(p, resp);
	if (resp->payload_len > GR_API_MAX_MSG_LEN)
		fail("response payload_len over GR_API_MAX_MSG_LEN", EMSGSIZE);
	// Drain the payload even if the response is going to be rejected, so the
	// message boundary stays right (and the error reported is the real one).
	if (p->exact)
		recv_full(p, rx, resp->payload_len);
	else
		ra_payload(p, rx, resp->payload_len);
	if (resp->for_id != id) {
		fprintf(stderr, "sysframe_ping: response for_id %" PRIu32 ", expected %" PRIu32 "\n",
			resp->for_id, id);
		exit(1);
	}
}

// The checks every timed response gets: status 0, the payload echoed whole.
static void check_echo(unsigned long nth, const struct resp_hdr *resp, const void *body,
		       const void *sent, uint32_t len, bool ping2) {
	if (resp->status != 0)
		fail(ping2 ? "GR_PING2 response status" : "GR_PING response status",
		     (int)resp->status);
	if (resp->payload_len != len) {
		fprintf(stderr, "sysframe_ping: call %lu: payload_len %" PRIu32 ", sent %" PRIu32 "\n",
			nth, resp->payload_len, len);
		exit(1);
	}
	if (memcmp(body, sent, len) != 0) {
		fprintf(stderr, "sysframe_ping: call %lu: echoed payload differs\n", nth);
		exit(1);
	}
}

// Pipelining (-d DEPTH > 1): DEPTH slots, each holding one request in flight.
// A request's id carries its slot in the low bits (above them a running
// sequence number), so a response finds its slot from for_id alone, in any
// order, and is checked against the id the slot holds.
struct pipeline {
	unsigned depth, batch, bits;
	uint32_t type, len;
	const uint8_t *tx; // every request's payload
	bool ping2;
	uint32_t seq;
	uint32_t *slot_id; // id of the request in each slot
	uint64_t *slot_t0; // when it was sent
	bool *busy;
	unsigned *free_slots, nfree; // stack of free slots
	struct req_hdr *hdrs; // the headers of the batch being sent
	uint8_t *copy; // batch copy buffer (COPY_MAX bytes)
	struct iovec *iov; // gather list for a batch over COPY_MAX (IOV_MAX entries)
	unsigned long sent, done;
	uint64_t *lat; // per request, in completion order
	uint8_t *rx; // a payload too large for the read-ahead buffer lands here
};

// Sends k requests in one send() of a copy, or in sendmsg() calls of at most
// IOV_MAX entries when k frames are more than COPY_MAX bytes.
static void send_batch(struct peer *p, struct pipeline *q, unsigned k) {
	size_t frame = sizeof(struct req_hdr) + q->len;
	for (unsigned i = 0; i < k; i++) {
		unsigned slot = q->free_slots[--q->nfree];
		uint32_t id = (++q->seq << q->bits) | slot;
		q->slot_id[slot] = id;
		q->busy[slot] = true;
		q->hdrs[i] = (struct req_hdr){.id = id, .type = q->type, .payload_len = q->len};
	}
	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < k; i++)
		q->slot_t0[q->hdrs[i].id & ((1u << q->bits) - 1)] = t0;
	if (k * frame <= COPY_MAX) {
		uint8_t *b = q->copy;
		for (unsigned i = 0; i < k; i++) {
			memcpy(b, &q->hdrs[i], sizeof(q->hdrs[i]));
			memcpy(b + sizeof(q->hdrs[i]), q->tx, q->len);
			b += frame;
		}
		send_full(p, q->copy, k * frame);
	} else {
		size_t cnt = 0;
		for (unsigned i = 0; i < k; i++) {
			q->iov[cnt++] = (struct iovec){.iov_base = &q->hdrs[i],
						       .iov_len = sizeof(q->hdrs[i])};
			if (q->len > 0)
				q->iov[cnt++] = (struct iovec){.iov_base = (void *)q->tx,
							       .iov_len = q->len};
			if (cnt + 2 > IOV_MAX || i + 1 == k) {
				sendmsg_full(p, q->iov, cnt);
				cnt = 0;
			}
		}
	}
	q->sent += k;
}

// One response: its slot from for_id, checks, latency, the slot freed.
static void complete(struct pipeline *q, const struct resp_hdr *h, const void *body,
		     uint64_t now) {
	unsigned slot = h->for_id & ((1u << q->bits) - 1);
	if (slot >= q->depth || !q->busy[slot] || q->slot_id[slot] != h->for_id) {
		fprintf(stderr, "sysframe_ping: response for_id %" PRIu32 " matches no request in flight\n",
			h->for_id);
		exit(1);
	}
	check_echo(q->done + 1, h, body, q->tx, q->len, q->ping2);
	q->lat[q->done++] = now - q->slot_t0[slot];
	q->busy[slot] = false;
	q->free_slots[q->nfree++] = slot;
}

// Completes every response that is whole in the read-ahead buffer. One too
// large for the buffer is finished now, its payload received straight into rx.
static void take_responses(struct peer *p, struct pipeline *q, uint64_t now) {
	for (;;) {
		size_t avail = p->rlen - p->rpos;
		struct resp_hdr h;
		if (avail < sizeof(h))
			break;
		memcpy(&h, p->rbuf + p->rpos, sizeof(h));
		if (h.payload_len > GR_API_MAX_MSG_LEN)
			fail("response payload_len over GR_API_MAX_MSG_LEN", EMSGSIZE);
		size_t whole = sizeof(h) + h.payload_len;
		if (avail >= whole) {
			complete(q, &h, p->rbuf + p->rpos + sizeof(h), now);
			p->rpos += whole;
		} else if (whole > sizeof(p->rbuf)) {
			p->rpos += sizeof(h);
			ra_payload(p, q->rx, h.payload_len);
			now = now_ns();
			complete(q, &h, q->rx, now);
		} else {
			break; // the rest comes with the next refill
		}
	}
	if (p->rpos == p->rlen)
		p->rpos = p->rlen = 0;
}

// A pipelined send found the socket full: wait until it can take more, taking
// the responses that arrive meanwhile (one refill each time there are some).
static void wait_writable(struct peer *p) {
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN | POLLOUT};
	for (;;) {
		int n = poll(&pfd, 1, -1);
		p->polls++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("poll", errno);
		}
		if (pfd.revents & POLLIN) {
			ra_refill(p);
			take_responses(p, p->pipe, now_ns());
		}
		if (pfd.revents & (POLLOUT | POLLERR | POLLHUP))
			return; // a send error is reported by the send itself
	}
}

static void sample_cpu(cpu_set_t *seen) {
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, seen);
}

// Lean mode (-L): DEPTH slots, each a prebuilt frame (header and payload
// written once) in one array; a request's id carries its slot in the low bits
// (above them a running sequence number), so an answer finds its slot from
// for_id alone. Only the ids of the frames a refill sends are written.
struct lean {
	int fd;
	enum wait_mode wait;
	unsigned depth, bits;
	uint32_t len;
	size_t frame; // header + payload bytes
	uint8_t *frames; // depth frames, the refill's first ones sent together
	uint8_t last; // the last payload byte every echo must end with
	uint32_t seq;
	uint32_t *slot_id; // id in flight in each slot, 0: free
	unsigned *free_slots, nfree; // stack of free slots
	size_t pend_off, pend_len; // frames of a refill the socket did not take yet
	uint8_t *rbuf; // LEAN_READ_AHEAD bytes; unread ones are rbuf[rpos..rlen)
	size_t rpos, rlen;
	unsigned long sent, done;
	uint64_t sends, recv_data, recv_empty, polls;
};

// One send(MSG_DONTWAIT) of what a refill left; a full socket keeps the rest
// pending, to be tried again before the next receive.
static void lean_send_pending(struct lean *l) {
	ssize_t n = send(l->fd, l->frames + l->pend_off, l->pend_len, MSG_NOSIGNAL | MSG_DONTWAIT);
	l->sends++;
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		fail("send", errno);
	}
	l->pend_off += (size_t)n;
	l->pend_len -= (size_t)n;
}

// Fills k free slots with the next requests, in the first k frames, and sends
// them with one send().
static void lean_refill(struct lean *l, unsigned k) {
	for (unsigned i = 0; i < k; i++) {
		unsigned slot = l->free_slots[--l->nfree];
		uint32_t id;
		do
			id = (++l->seq << l->bits) | slot;
		while (id == 0);
		l->slot_id[slot] = id;
		memcpy(l->frames + i * l->frame, &id, sizeof(id));
	}
	l->sent += k;
	l->pend_off = 0;
	l->pend_len = k * l->frame;
	lean_send_pending(l);
}

// One receive that brings data into the read-ahead buffer, waiting as -W says.
// While a refill is still pending, a blocking wait is a poll() for either way,
// so that the rest of the refill goes out as soon as the socket takes it.
static void lean_recv(struct lean *l) {
	for (;;) {
		if (l->pend_len > 0)
			lean_send_pending(l);
		bool block = l->wait == WAIT_BLOCK && l->pend_len == 0;
		ssize_t n = recv(l->fd, l->rbuf + l->rlen, LEAN_READ_AHEAD - l->rlen,
				 block ? 0 : MSG_DONTWAIT);
		if (n > 0) {
			l->recv_data++;
			l->rlen += (size_t)n;
			return;
		}
		if (n == 0)
			fail("recv", ECONNRESET);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			fail("recv", errno);
		l->recv_empty++;
		if (l->wait == WAIT_BLOCK) {
			struct pollfd pfd = {.fd = l->fd, .events = POLLIN | POLLOUT};
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				fail("poll", errno);
			l->polls++;
		} else if (l->wait == WAIT_YIELD) {
			sched_yield();
		}
	}
}

// Completes every answer that is whole in the buffer: its slot from for_id,
// status 0, the payload's length and last byte, the slot freed. The unread
// bytes move to the front only when less than a largest answer fits after them.
static void lean_take(struct lean *l) {
	uint32_t mask = (1u << l->bits) - 1;
	while (l->rlen - l->rpos >= sizeof(struct resp_hdr)) {
		struct resp_hdr h;
		memcpy(&h, l->rbuf + l->rpos, sizeof(h));
		if (h.payload_len > GR_API_MAX_MSG_LEN)
			fail("response payload_len over GR_API_MAX_MSG_LEN", EMSGSIZE);
		size_t whole = sizeof(h) + h.payload_len;
		if (l->rlen - l->rpos < whole)
			break;
		unsigned slot = h.for_id & mask;
		if (slot >= l->depth || l->slot_id[slot] != h.for_id || h.for_id == 0) {
			fprintf(stderr, "sysframe_ping: response for_id %" PRIu32 " matches no request in flight\n",
				h.for_id);
			exit(1);
		}
		if (h.status != 0)
			fail("GR_PING response status", (int)h.status);
		if (h.payload_len != l->len || (l->len > 0 && l->rbuf[l->rpos + whole - 1] != l->last)) {
			fprintf(stderr, "sysframe_ping: call %lu: payload_len %" PRIu32 ", sent %" PRIu32
				", or its payload differs\n", l->done + 1, h.payload_len, l->len);
			exit(1);
		}
		l->slot_id[slot] = 0;
		l->free_slots[l->nfree++] = slot;
		l->done++;
		l->rpos += whole;
	}
	if (l->rpos == l->rlen) {
		l->rpos = l->rlen = 0;
	} else if (LEAN_READ_AHEAD - l->rlen < sizeof(struct resp_hdr) + GR_API_MAX_MSG_LEN) {
		memmove(l->rbuf, l->rbuf + l->rpos, l->rlen - l->rpos);
		l->rlen -= l->rpos;
		l->rpos = 0;
	}
}

// The lean timed loop: the whole window at once, then, each time answers come,
// one send() refilling the slots they freed.
static void lean_run(struct lean *l, unsigned long count, cpu_set_t *seen) {
	unsigned long next_sample = 0;
	for (;;) {
		if (l->pend_len == 0 && l->nfree > 0 && l->sent < count) {
			unsigned long left = count - l->sent;
			lean_refill(l, left < l->nfree ? (unsigned)left : l->nfree);
		}
		if (l->done >= count)
			break;
		if (l->done >= next_sample) {
			sample_cpu(seen);
			next_sample += CPU_SAMPLE_EVERY;
		}
		lean_recv(l);
		lean_take(l);
	}
}

// This thread's CPU time so far (CLOCK_THREAD_CPUTIME_ID: its exact runtime).
static uint64_t thread_cpu_ns(void) {
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		fail("clock_gettime(CLOCK_THREAD_CPUTIME_ID)", errno);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// What a run of calls needs: the connection, the mode's state (lean, or a
// pipeline when depth > 1, else one call at a time), the request and where
// latencies go (one per call, not for lean).
struct run {
	struct peer *peer;
	struct lean *lean; // -L, else NULL
	struct pipeline *pipe; // depth > 1 and not lean, else NULL
	uint32_t id, type, len;
	const uint8_t *tx;
	uint8_t *rx;
	bool ping2;
	uint64_t *lat;
	size_t nlat; // room in lat
	unsigned batch;
};

// count calls as the mode says, the CPUs they ran on added to seen, their
// syscalls added to the peer's counts. A run ends with nothing in flight: its
// mode's own counts are back at 0 for the next run.
static void run_calls(struct run *r, unsigned long count, cpu_set_t *seen) {
	struct peer *p = r->peer;
	p->pipe = r->pipe; // a pipelined send that finds the socket full takes answers meanwhile
	if (r->lean != NULL) {
		struct lean *l = r->lean;
		lean_run(l, count, seen);
		p->sends += l->sends;
		p->recv_data += l->recv_data;
		p->recv_empty += l->recv_empty;
		p->polls += l->polls;
		l->sends = l->recv_data = l->recv_empty = l->polls = 0;
		l->sent = l->done = 0;
	} else if (r->pipe == NULL) {
		struct resp_hdr resp;
		for (unsigned long i = 0; i < count; i++) {
			if (i % CPU_SAMPLE_EVERY == 0)
				sample_cpu(seen);
			uint64_t t0 = now_ns();
			call(p, ++r->id, r->type, r->tx, r->len, &resp, r->rx);
			r->lat[i] = now_ns() - t0;
			check_echo(i + 1, &resp, r->rx, r->tx, r->len, r->ping2);
		}
	} else {
		struct pipeline *q = r->pipe;
		unsigned long next_sample = 0;
		while (q->done < count) {
			if (q->done >= next_sample) {
				sample_cpu(seen);
				next_sample += CPU_SAMPLE_EVERY;
			}
			for (;;) {
				unsigned long left = count - q->sent;
				unsigned k = left < r->batch ? (unsigned)left : r->batch;
				if (k == 0 || q->nfree < k)
					break;
				send_batch(p, q, k);
			}
			ra_refill(p);
			take_responses(p, q, now_ns());
		}
		q->sent = q->done = 0;
	}
	p->pipe = NULL;
}

// The CPUs of set as "0,1" (empty: "?").
static const char *cpu_list(const cpu_set_t *set) {
	static char buf[CPU_SETSIZE * 6];
	size_t n = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d", n > 0 ? "," : "", c);
	return n > 0 ? buf : "?";
}

static uint64_t tv_us(struct timeval tv) {
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

// What a timed run cost: its wall time and its thread's CPU. The CPU total comes from
// the thread's CPU clock (its exact runtime), the user/system split and the context
// switches from getrusage (whose split comes from ticks, and whose total, over a short
// run of a process that has run before, can lag).
struct run_cost {
	struct rusage ru0;
	uint64_t cpu0, start, end, cpu_ns, user_us, sys_us;
	long nvcsw, nivcsw;
	double secs;
};

static void run_cost_begin(struct run_cost *c) {
	if (getrusage(RUSAGE_THREAD, &c->ru0) < 0)
		fail("getrusage", errno);
	c->cpu0 = thread_cpu_ns();
	c->start = now_ns();
}

static void run_cost_end(struct run_cost *c) {
	c->end = now_ns();
	c->cpu_ns = thread_cpu_ns() - c->cpu0;
	struct rusage ru1;
	if (getrusage(RUSAGE_THREAD, &ru1) < 0)
		fail("getrusage", errno);
	c->secs = (double)(c->end - c->start) / 1e9;
	c->user_us = tv_us(ru1.ru_utime) - tv_us(c->ru0.ru_utime);
	c->sys_us = tv_us(ru1.ru_stime) - tv_us(c->ru0.ru_stime);
	c->nvcsw = ru1.ru_nvcsw - c->ru0.ru_nvcsw;
	c->nivcsw = ru1.ru_nivcsw - c->ru0.ru_nivcsw;
}

// The run's cost per call, one line: context switches, user and system CPU, the CPUs it ran on.
static void run_cost_print(const struct run_cost *c, double n, const cpu_set_t *seen) {
	printf("per call: %.4f voluntary + %.4f involuntary context switches, %.3f us user + %.3f us "
	       "system CPU; ran on cpu %s\n",
	       (double)c->nvcsw / n, (double)c->nivcsw / n, (double)c->user_us / n, (double)c->sys_us / n,
	       cpu_list(seen));
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted array: the ceil(p * n)-th smallest value.
static uint64_t percentile(const uint64_t *sorted, size_t n, unsigned permille) {
	size_t rank = ((uint64_t)permille * n + 999) / 1000;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void parse_wait(const char *arg, struct peer *p, char *name, size_t name_len) {
	static const char accepted[] = "block|spin|spin:N|yield, N microseconds 0..60000000";
	if (strcmp(arg, "block") == 0) {
		p->wait = WAIT_BLOCK;
	} else if (strcmp(arg, "spin") == 0) {
		p->wait = WAIT_SPIN;
	} else if (strcmp(arg, "yield") == 0) {
		p->wait = WAIT_YIELD;
	} else if (strncmp(arg, "spin:", 5) == 0) {
		const char *n = arg + 5;
		char *end;
		errno = 0;
		unsigned long us = strtoul(n, &end, 10);
		if (errno != 0 || end == n || *end != '\0' || n[0] == '-' || n[0] == '+' ||
		    us > SPIN_US_MAX)
			bad_option('W', arg, accepted);
		p->wait = WAIT_SPIN_BLOCK;
		p->spin_ns = (uint64_t)us * 1000u;
	} else {
		bad_option('W', arg, accepted);
	}
	snprintf(name, name_len, "%s", arg);
}

// Where connect_hello connects and what its GR_HELLO says.
struct hello_args {
	const char *path;
	uint32_t api_version;
};

// A new connection to h->path, and its GR_HELLO (the id it used in *id).
static void connect_hello(struct peer *p, const struct hello_args *h, uint32_t *id, uint8_t *rx) {
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(h->path) >= sizeof(addr.sun_path))
		fail(h->path, ENAMETOOLONG);
	strcpy(addr.sun_path, h->path);
	p->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		fail("socket", errno);
	if (connect(p->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		fail(h->path, errno);

	// GR_HELLO must come first: {u32 api_version; char version[128]} -> u16.
	uint8_t hello[sizeof(uint32_t) + HELLO_VERSION_LEN] = {0};
	memcpy(hello, &h->api_version, sizeof(h->api_version));
	snprintf((char *)hello + sizeof(h->api_version), HELLO_VERSION_LEN, "sysframe-c-peer");
	struct resp_hdr resp;
	call(p, ++*id, GR_HELLO, hello, sizeof(hello), &resp, rx);
	if (resp.status != 0)
		fail("GR_HELLO (api version mismatch if EBADMSG; see -v)", (int)resp.status);
	if (resp.payload_len != sizeof(uint16_t)) {
		fprintf(stderr, "sysframe_ping: GR_HELLO response payload_len %" PRIu32 ", expected 2\n",
			resp.payload_len);
		exit(1);
	}
}

// Untimed calls, made as the timed ones, for ms milliseconds (-U): a process
// started for one run begins cold (here its first thousand calls ran at 0.2-0.6x
// the later ones' rate spinning, and anywhere in 0.5-1.4x blocking), so its
// timed loop starts where a process that has been running would be. Whole
// chunks, each ending with nothing in flight; nothing of them is reported.
static void warm_up(struct run *r, unsigned long ms) {
	if (ms == 0)
		return;
	cpu_set_t ignored;
	CPU_ZERO(&ignored);
	uint64_t until = now_ns() + (uint64_t)ms * 1000000u;
	do
		run_calls(r, WARM_UP_CHUNK, &ignored);
	while (now_ns() < until);
}

// Waits until stdin has something to read (or is closed), without reading it:
// poll() is not among the kinds a parent's counters count.
static void wait_stdin(void) {
	struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
	while (poll(&in, 1, -1) < 0) {
		if (errno != EINTR)
			fail("poll", errno);
	}
}

// One line of stdin into buf, without its newline, read with read() (no stdio
// buffer, so that wait_stdin sees what is left); false at end of file. A line
// longer than buf is cut.
static bool read_line(char *buf, size_t size) {
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t got = read(STDIN_FILENO, &c, 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			fail("read stdin", errno);
		}
		if (got == 0) {
			buf[n] = '\0';
			return n > 0;
		}
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return true;
}

// A -R command's count of calls: 1..1000000000, else a usage error.
static unsigned long parse_command_count(const char *line) {
	char *end;
	errno = 0;
	unsigned long v = strtoul(line, &end, 10);
	if (errno != 0 || end == line || *end != '\0' || line[0] == '-' || v < 1 || v > 1000000000ul) {
		fprintf(stderr, "sysframe_ping: -R: '%s' is neither a count of calls (1..1000000000) nor reconnect\n",
			line);
		exit(EXIT_USAGE);
	}
	return v;
}

// Room for n latencies (a lean run records none).
static void grow_latencies(struct run *r, unsigned long n) {
	if (r->lean != NULL || n <= r->nlat)
		return;
	uint64_t *lat = realloc(r->lat, n * sizeof(*lat));
	if (lat == NULL)
		fail("realloc", ENOMEM);
	memset(lat + r->nlat, 0, (n - r->nlat) * sizeof(*lat));
	r->lat = lat;
	r->nlat = n;
	if (r->pipe != NULL)
		r->pipe->lat = lat;
}

// What a run's summary says besides its figures.
struct report {
	bool json;
	const char *wait_name;
	long pin;
	unsigned long depth, batch, len;
};

// count timed calls, then their summary (and with -j its JSON line) on stdout.
static void timed_run(struct run *r, unsigned long count, const struct report *o) {
	struct peer *p = r->peer;
	bool lean = r->lean != NULL;
	// Only the timed loop's syscalls are reported.
	p->sends = p->recv_data = p->recv_empty = p->polls = 0;
	cpu_set_t seen;
	CPU_ZERO(&seen);
	struct run_cost c;
	run_cost_begin(&c);
	run_calls(r, count, &seen);
	run_cost_end(&c);

	uint64_t start = c.start, end = c.end, cpu_ns = c.cpu_ns, user_us = c.user_us, sys_us = c.sys_us;
	long nvcsw = c.nvcsw, nivcsw = c.nivcsw;
	double secs = c.secs, rate = (double)count / secs, n = (double)count;
	unsigned long batch = lean ? 0ul : o->depth == 1 ? 1ul : o->batch;
	const char *framing = lean ? "lean" : o->depth == 1 ? (p->split ? "split" : "sendmsg")
			      : o->batch * (sizeof(struct req_hdr) + o->len) <= COPY_MAX ? "copy"
											 : "gather";
	printf("total time: %.3f s (%.1f calls/s)\n", secs, rate);
	printf("per call: %.4f sends, %.4f recvs with data, %.4f empty recvs, %.4f polls (wait %s, "
	       "depth %lu, batch %lu, framing %s)\n",
	       (double)p->sends / n, (double)p->recv_data / n, (double)p->recv_empty / n,
	       (double)p->polls / n, o->wait_name, o->depth, batch, framing);
	run_cost_print(&c, n, &seen);

	if (o->json) {
		// Lean: no latency was measured, every percentile reads 0.
		size_t nlat = lean ? 1 : count;
		uint64_t *lat = r->lat;
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		printf("{\"peer\":\"c\",\"framing\":\"%s\",\"recv\":\"%s\",\"count\":%lu,\"len\":%lu,"
		       "\"seconds\":%.6f,\"calls_per_sec\":%.1f,"
		       "\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
		       ",\"p999_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ","
		       "\"cpu_ns\":%" PRIu64 ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
		       ",\"nvcsw\":%ld,\"nivcsw\":%ld,"
		       "\"wait\":\"%s\",\"pin\":%ld,\"depth\":%lu,\"batch\":%lu,"
		       "\"sends\":%" PRIu64 ",\"recv_data\":%" PRIu64 ",\"recv_empty\":%" PRIu64
		       ",\"polls\":%" PRIu64 ","
		       "\"sends_per_call\":%.6f,\"recvs_per_call\":%.6f,"
		       "\"recv_data_per_call\":%.6f,\"recv_empty_per_call\":%.6f,"
		       "\"vcsw_per_call\":%.6f,\"ivcsw_per_call\":%.6f,"
		       "\"user_us_per_call\":%.4f,\"sys_us_per_call\":%.4f,\"cpus\":\"%s\","
		       "\"lean\":%s,\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "}\n",
		       framing, p->exact ? "exact" : "readahead", count, o->len, secs, rate,
		       percentile(lat, nlat, 500), percentile(lat, nlat, 900),
		       percentile(lat, nlat, 990), percentile(lat, nlat, 999), lat[nlat - 1],
		       cpu_ns, user_us, sys_us, nvcsw, nivcsw, o->wait_name, o->pin, o->depth, batch,
		       p->sends, p->recv_data, p->recv_empty, p->polls, (double)p->sends / n,
		       (double)(p->recv_data + p->recv_empty) / n, (double)p->recv_data / n,
		       (double)p->recv_empty / n, (double)nvcsw / n, (double)nivcsw / n,
		       (double)user_us / n, (double)sys_us / n, cpu_list(&seen),
		       lean ? "true" : "false", start, end);
	}
	fflush(stdout);
}

// Latencies of -M's calls: a histogram of fixed size, so that recording one
// allocates nothing. Below 128 ns every value has its bucket; from 128 on, each
// power of two [2^e, 2^(e+1)) is cut into 64 buckets of width 2^(e-6), so a
// bucket's values are within 1/64 of each other. Index of v >= 128:
// (e - 6) * 64 + (v >> (e - 6)), the second term in 64..127; the last one,
// e = 63, ends at (63 - 6) * 64 + 127.
#define HIST_BUCKETS ((63 - 6) * 64 + 128)

struct hist {
	uint64_t n, max;
	uint64_t bucket[HIST_BUCKETS];
};

static unsigned hist_index(uint64_t v) {
	if (v < 128)
		return (unsigned)v;
	unsigned shift = 63u - (unsigned)__builtin_clzll(v) - 6u;
	return shift * 64u + (unsigned)(v >> shift);
}

// The largest value bucket i holds.
static uint64_t hist_upper(unsigned i) {
	if (i < 128)
		return i;
	unsigned shift = i / 64u - 1u;
	uint64_t sub = i % 64u + 64u;
	return ((sub + 1u) << shift) - 1u; // wraps to UINT64_MAX for the very last bucket, as it should
}

static void hist_add(struct hist *h, uint64_t v) {
	h->bucket[hist_index(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

// Nearest rank, as percentile() does: the bucket holding the ceil(p * n)-th
// smallest value, read as its largest value (never above the largest seen).
static uint64_t hist_percentile(const struct hist *h, unsigned permille) {
	if (h->n == 0)
		return 0;
	uint64_t rank = (permille * h->n + 999) / 1000, seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t v = hist_upper(i);
			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}

// Where one of -M's connections is: answers awaited in order, GR_HELLO's, then
// its first GR_PING's, then ready (idle, or making a timed run's calls).
enum conn_state { CONN_HELLO, CONN_PING, CONN_READY };

// One of -M's connections: all an idle one costs besides its descriptor.
struct conn {
	int fd;
	uint32_t id; // the request in flight (or the last one answered)
	uint32_t got; // bytes of its answer received so far
	uint8_t state; // enum conn_state
	uint8_t hdr[sizeof(struct resp_hdr)]; // the answer's header, as it comes
};

struct many {
	const char *path;
	struct sockaddr_un addr;
	uint32_t type, len; // of every GR_PING (or GR_PING2 with -2)
	unsigned long n, k; // connections, the active ones among them (the first k)
	struct conn *conns;
	int ep; // the active connections (and, while they are set up, the others too)
	struct epoll_event *events; // EVENTS_MAX
	uint8_t hello[sizeof(struct req_hdr) + sizeof(uint32_t) + HELLO_VERSION_LEN]; // id 1
	uint8_t *frame; // a GR_PING: header (its id written per send) and payload
	size_t frame_len;
	const uint8_t *tx; // the payload each echo must match
	uint8_t *scratch; // where the setup's answers land: a header and the largest payload
	size_t scratch_len;
	uint8_t *rbufs; // the active connections' own receive buffers, rbuf_len bytes each
	size_t rbuf_len;
	uint64_t *t0; // per active connection: when its request was sent
	struct hist *hist;
	unsigned long sent, done; // calls of the run under way
	uint64_t sends, recv_data, recv_empty, epoll_waits, polls; // syscalls made
};

// A failure on connection i: one line, exit 1.
static void many_fail(const struct many *m, unsigned long i, const char *what, int err) {
	fprintf(stderr, "sysframe_ping: connection %lu of %lu: %s: %s\n", i + 1, m->n, what,
		strerror(err));
	exit(1);
}

// The soft RLIMIT_NOFILE raised to the hard one, which must hold the n
// connections and FD_SPARE more.
static void raise_nofile(unsigned long n) {
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		fail("getrlimit(RLIMIT_NOFILE)", errno);
	if (rl.rlim_max != RLIM_INFINITY && n + FD_SPARE > rl.rlim_max) {
		fprintf(stderr, "sysframe_ping: -M %lu: needs %lu file descriptors, over the hard "
			"RLIMIT_NOFILE of %llu (raise it: ulimit -Hn as root)\n",
			n, n + FD_SPARE, (unsigned long long)rl.rlim_max);
		exit(1);
	}
	rlim_t want = rl.rlim_max != RLIM_INFINITY ? rl.rlim_max : (rlim_t)(n + FD_SPARE);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		fail("setrlimit(RLIMIT_NOFILE)", errno);
}

// One send() of the whole buffer on connection i, counted. The socket does not
// block: should it take only part (a large request), wait in poll() until it
// takes more (counted too).
static void many_send(struct many *m, unsigned long i, const uint8_t *b, size_t len) {
	int fd = m->conns[i].fd;
	for (;;) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		m->sends++;
		if (n == (ssize_t)len)
			return;
		if (n >= 0) {
			b += n;
			len -= (size_t)n;
		} else if (errno == EINTR) {
			continue;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
			many_fail(m, i, "send", errno);
		}
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		while (poll(&pfd, 1, -1) < 0) {
			if (errno != EINTR)
				many_fail(m, i, "poll", errno);
		}
		m->polls++;
	}
}

// Takes n bytes of connection i's answer in flight: its header gathered in
// c->hdr and checked once whole, its payload compared with what was sent (a
// GR_HELLO's answer is its 2 bytes, any). True when the answer is complete.
static bool many_feed(const struct many *m, unsigned long i, const uint8_t *b, size_t n) {
	struct conn *c = &m->conns[i];
	bool hello = c->state == CONN_HELLO;
	uint32_t want = hello ? (uint32_t)sizeof(uint16_t) : m->len;
	const uint32_t hl = sizeof(struct resp_hdr);
	if (c->got < hl) {
		size_t take = hl - c->got < n ? hl - c->got : n;
		memcpy(c->hdr + c->got, b, take);
		c->got += (uint32_t)take;
		b += take;
		n -= take;
		if (c->got < hl)
			return false;
		struct resp_hdr h;
		memcpy(&h, c->hdr, sizeof(h));
		if (h.for_id != c->id) {
			fprintf(stderr, "sysframe_ping: connection %lu of %lu: response for_id %" PRIu32
				", expected %" PRIu32 "\n", i + 1, m->n, h.for_id, c->id);
			exit(1);
		}
		if (h.status != 0)
			many_fail(m, i, hello ? "GR_HELLO (api version mismatch if EBADMSG; see -v)"
				  : m->type == GR_PING2 ? "GR_PING2 response status" : "GR_PING response status",
				  (int)h.status);
		if (h.payload_len != want) {
			fprintf(stderr, "sysframe_ping: connection %lu of %lu: payload_len %" PRIu32
				", expected %" PRIu32 "\n", i + 1, m->n, h.payload_len, want);
			exit(1);
		}
	}
	uint32_t off = c->got - hl;
	if (n > want - off) {
		fprintf(stderr, "sysframe_ping: connection %lu of %lu: %zu bytes more than its answer\n",
			i + 1, m->n, n - (want - off));
		exit(1);
	}
	if (!hello && memcmp(b, m->tx + off, n) != 0) {
		fprintf(stderr, "sysframe_ping: connection %lu of %lu: echoed payload differs\n", i + 1,
			m->n);
		exit(1);
	}
	c->got += (uint32_t)n;
	if (c->got < hl + want)
		return false;
	c->got = 0;
	return true;
}

// One recv() on connection i into buf (room bytes), counted, its bytes taken
// by many_feed; true when they completed the answer in flight.
static bool many_recv(struct many *m, unsigned long i, uint8_t *buf, size_t room) {
	ssize_t n = recv(m->conns[i].fd, buf, room, 0);
	if (n > 0) {
		m->recv_data++;
		return many_feed(m, i, buf, (size_t)n);
	}
	if (n == 0)
		many_fail(m, i, "recv", ECONNRESET); // the server closed it
	if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		many_fail(m, i, "recv", errno);
	m->recv_empty++;
	return false;
}

// The next GR_PING on active connection i: its id in the frame, its send time
// noted, one send().
static void many_ping(struct many *m, unsigned long i) {
	struct conn *c = &m->conns[i];
	c->id++;
	memcpy(m->frame, &c->id, sizeof(c->id));
	m->t0[i] = now_ns();
	many_send(m, i, m->frame, m->frame_len);
	m->sent++;
}

// A nonblocking connect of connection i, and its GR_HELLO. Returns false when
// the listen backlog is full (EAGAIN: to be tried again); any other failure
// ends the process with one line.
static bool many_open(struct many *m, unsigned long i) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		many_fail(m, i, "socket", errno);
	if (connect(fd, (const struct sockaddr *)&m->addr, sizeof(m->addr)) < 0) {
		int err = errno;
		close(fd);
		if (err == EAGAIN || err == EINTR)
			return false;
		fprintf(stderr, "sysframe_ping: connect %s: %s (connection %lu of %lu)\n", m->path,
			strerror(err), i + 1, m->n);
		exit(1);
	}
	m->conns[i] = (struct conn){.fd = fd, .id = 1, .state = CONN_HELLO};
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
	if (epoll_ctl(m->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		many_fail(m, i, "epoll_ctl(ADD)", errno);
	many_send(m, i, m->hello, sizeof(m->hello));
	return true;
}

// Opens all n connections, SETUP_WINDOW at most between their connect and
// their GR_PING's answer at a time. Each says GR_HELLO, then, answered, makes
// one GR_PING; answered too, an idle one leaves the epoll set (an active one
// stays, with nothing in flight). Fails with one line after CONNECT_WAIT_MS
// without progress (a connect or an answer's bytes).
static void many_connect(struct many *m) {
	unsigned long opened = 0, ready = 0, setting_up = 0;
	uint64_t last_progress = now_ns();
	while (ready < m->n) {
		bool backlog_full = false;
		while (opened < m->n && setting_up < SETUP_WINDOW) {
			if (!many_open(m, opened)) {
				backlog_full = true;
				break;
			}
			opened++;
			setting_up++;
			last_progress = now_ns();
		}
		// A full backlog is tried again after a millisecond, or as soon as answers come.
		int got = epoll_wait(m->ep, m->events, EVENTS_MAX, backlog_full ? 1 : 100);
		if (got < 0 && errno != EINTR)
			fail("epoll_wait", errno);
		for (int e = 0; e < got; e++) {
			unsigned long i = m->events[e].data.u32;
			struct conn *c = &m->conns[i];
			last_progress = now_ns();
			if (!many_recv(m, i, m->scratch, m->scratch_len))
				continue;
			if (c->state == CONN_HELLO) {
				c->state = CONN_PING;
				c->id++;
				memcpy(m->frame, &c->id, sizeof(c->id));
				many_send(m, i, m->frame, m->frame_len);
				continue;
			}
			if (c->state != CONN_PING) {
				fprintf(stderr, "sysframe_ping: connection %lu of %lu: an answer to no request\n",
					i + 1, m->n);
				exit(1);
			}
			c->state = CONN_READY;
			setting_up--;
			ready++;
			if (i >= m->k && epoll_ctl(m->ep, EPOLL_CTL_DEL, c->fd, NULL) < 0)
				many_fail(m, i, "epoll_ctl(DEL)", errno);
		}
		if (now_ns() - last_progress > (uint64_t)CONNECT_WAIT_MS * 1000000u) {
			if (backlog_full)
				fprintf(stderr, "sysframe_ping: connect %s: the listen backlog stayed full for "
					"%d s (%lu of %lu connected)\n",
					m->path, CONNECT_WAIT_MS / 1000, opened, m->n);
			else
				fprintf(stderr, "sysframe_ping: %s: no answer to GR_HELLO or GR_PING for %d s "
					"(%lu of %lu connections ready)\n",
					m->path, CONNECT_WAIT_MS / 1000, ready, m->n);
			exit(1);
		}
	}
}

// That the idle connections are still as their setup left them: poll()ed 512
// at a time, without waiting (they are in no epoll set), before each run and at
// exit, outside every timed window; an event on one (the server closed it, or
// sent it bytes unasked) ends the process with one line, so that no run counts
// connections that are gone.
static void many_check_idle(const struct many *m) {
	struct pollfd pfd[512];
	for (unsigned long base = m->k; base < m->n; base += 512) {
		unsigned cnt = m->n - base < 512 ? (unsigned)(m->n - base) : 512u;
		for (unsigned j = 0; j < cnt; j++)
			pfd[j] = (struct pollfd){.fd = m->conns[base + j].fd, .events = POLLIN};
		int got;
		while ((got = poll(pfd, cnt, 0)) < 0) {
			if (errno != EINTR)
				fail("poll", errno);
		}
		for (unsigned j = 0; got > 0 && j < cnt; j++) {
			if (pfd[j].revents == 0)
				continue;
			fprintf(stderr, "sysframe_ping: connection %lu of %lu (idle): %s\n", base + j + 1, m->n,
				pfd[j].revents & (POLLHUP | POLLERR) ? "the server closed it"
								      : "bytes came unasked");
			exit(1);
		}
	}
}

// Closes every connection: with nothing in flight, the server reads a clean
// end of file on each (no unread bytes, so no ECONNRESET).
static void many_close(struct many *m) {
	for (unsigned long i = 0; i < m->n; i++) {
		if (m->conns[i].fd >= 0)
			close(m->conns[i].fd);
		m->conns[i].fd = -1;
	}
}

// count calls across the active connections, each keeping one request in
// flight until count were sent; each answer's latency into the histogram, the
// CPUs seen into seen. Ends with nothing in flight.
static void many_run(struct many *m, unsigned long count, cpu_set_t *seen) {
	m->sent = m->done = 0;
	unsigned long first = count < m->k ? count : m->k, next_sample = 0;
	for (unsigned long i = 0; i < first; i++)
		many_ping(m, i);
	while (m->done < count) {
		if (m->done >= next_sample) {
			sample_cpu(seen);
			next_sample += CPU_SAMPLE_EVERY;
		}
		int got = epoll_wait(m->ep, m->events, EVENTS_MAX, -1);
		m->epoll_waits++;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			fail("epoll_wait", errno);
		}
		// Every answer this wait reported is counted as arrived now.
		uint64_t now = now_ns();
		for (int e = 0; e < got; e++) {
			unsigned long i = m->events[e].data.u32;
			if (!many_recv(m, i, m->rbufs + i * m->rbuf_len, m->rbuf_len))
				continue;
			hist_add(m->hist, now - m->t0[i]);
			m->done++;
			if (m->sent < count)
				many_ping(m, i);
		}
	}
}

// -U for -M: untimed runs of max(K, WARM_UP_CHUNK) calls for ms milliseconds.
static void many_warm_up(struct many *m, unsigned long ms) {
	if (ms == 0 || m->k == 0)
		return;
	cpu_set_t ignored;
	CPU_ZERO(&ignored);
	unsigned long chunk = m->k > WARM_UP_CHUNK ? m->k : WARM_UP_CHUNK;
	uint64_t until = now_ns() + (uint64_t)ms * 1000000u;
	do
		many_run(m, chunk, &ignored);
	while (now_ns() < until);
}

// count timed calls across the active connections, then their summary (and
// with -j its JSON line) on stdout, as timed_run prints a run's.
static void many_timed_run(struct many *m, unsigned long count, const struct report *o) {
	m->sends = m->recv_data = m->recv_empty = m->epoll_waits = m->polls = 0;
	memset(m->hist, 0, sizeof(*m->hist));
	cpu_set_t seen;
	CPU_ZERO(&seen);
	struct run_cost c;
	run_cost_begin(&c);
	many_run(m, count, &seen);
	run_cost_end(&c);

	uint64_t start = c.start, end = c.end, cpu_ns = c.cpu_ns, user_us = c.user_us, sys_us = c.sys_us;
	long nvcsw = c.nvcsw, nivcsw = c.nivcsw;
	double secs = c.secs, rate = (double)count / secs, n = (double)count;
	uint64_t reads = m->recv_data + m->recv_empty;
	printf("total time: %.3f s (%.1f calls/s)\n", secs, rate);
	printf("per call: %.4f sends, %.4f recvs with data, %.4f empty recvs, %.4f epoll_waits, "
	       "%.4f polls (%lu connections, %lu active, one request in flight each, epoll "
	       "level-triggered, framing frame)\n",
	       (double)m->sends / n, (double)m->recv_data / n, (double)m->recv_empty / n,
	       (double)m->epoll_waits / n, (double)m->polls / n, m->n, m->k);
	run_cost_print(&c, n, &seen);
	if (o->json) {
		printf("{\"peer\":\"c\",\"framing\":\"frame\",\"recv\":\"readahead\",\"count\":%lu,"
		       "\"len\":%lu,\"connections\":%lu,\"active\":%lu,\"epoll\":\"level\","
		       "\"seconds\":%.6f,\"calls_per_sec\":%.1f,"
		       "\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
		       ",\"p999_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ","
		       "\"cpu_ns\":%" PRIu64 ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
		       ",\"nvcsw\":%ld,\"nivcsw\":%ld,"
		       "\"wait\":\"epoll\",\"pin\":%ld,\"depth\":1,\"batch\":1,"
		       "\"sends\":%" PRIu64 ",\"reads\":%" PRIu64 ",\"recv_data\":%" PRIu64
		       ",\"recv_empty\":%" PRIu64 ",\"epoll_waits\":%" PRIu64 ",\"polls\":%" PRIu64 ","
		       "\"sends_per_call\":%.6f,\"recvs_per_call\":%.6f,"
		       "\"recv_data_per_call\":%.6f,\"recv_empty_per_call\":%.6f,"
		       "\"epoll_waits_per_call\":%.6f,"
		       "\"vcsw_per_call\":%.6f,\"ivcsw_per_call\":%.6f,"
		       "\"user_us_per_call\":%.4f,\"sys_us_per_call\":%.4f,\"cpus\":\"%s\","
		       "\"lean\":false,\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "}\n",
		       count, o->len, m->n, m->k, secs, rate,
		       hist_percentile(m->hist, 500), hist_percentile(m->hist, 900),
		       hist_percentile(m->hist, 990), hist_percentile(m->hist, 999), m->hist->max,
		       cpu_ns, user_us, sys_us, nvcsw, nivcsw, o->pin,
		       m->sends, reads, m->recv_data, m->recv_empty, m->epoll_waits, m->polls,
		       (double)m->sends / n, (double)reads / n, (double)m->recv_data / n,
		       (double)m->recv_empty / n, (double)m->epoll_waits / n,
		       (double)nvcsw / n, (double)nivcsw / n, (double)user_us / n, (double)sys_us / n,
		       cpu_list(&seen), start, end);
	}
	fflush(stdout);
}

// What -M's process is told by its options.
struct many_args {
	const char *path;
	uint32_t api_version, type, len;
	unsigned long n, k, count, warmup_ms;
	bool wait_go, repeat;
	const struct report *rep;
};

// The -M mode, from its start to its exit code.
static int many_main(const struct many_args *a) {
	raise_nofile(a->n);
	static struct many m;
	m.path = a->path;
	m.addr.sun_family = AF_UNIX;
	if (strlen(a->path) >= sizeof(m.addr.sun_path))
		fail(a->path, ENAMETOOLONG);
	strcpy(m.addr.sun_path, a->path);
	m.type = a->type;
	m.len = a->len;
	m.n = a->n;
	m.k = a->k;

	// Every buffer allocated and touched now: the idle connections get their struct only,
	// the active ones a receive buffer each, as large as one answer up to READ_AHEAD_LEN
	// (one request in flight: no byte of a next answer can come with it), in 64-byte steps.
	m.conns = calloc(m.n, sizeof(*m.conns));
	m.events = calloc(EVENTS_MAX, sizeof(*m.events));
	m.frame_len = sizeof(struct req_hdr) + m.len;
	m.frame = malloc(m.frame_len);
	uint8_t *tx = malloc(m.len > 0 ? m.len : 1);
	m.scratch_len = sizeof(struct resp_hdr) + GR_API_MAX_MSG_LEN;
	m.scratch = malloc(m.scratch_len);
	size_t whole = sizeof(struct resp_hdr) + m.len;
	m.rbuf_len = ((whole < READ_AHEAD_LEN ? whole : READ_AHEAD_LEN) + 63) & ~(size_t)63;
	m.rbufs = malloc(m.k > 0 ? m.k * m.rbuf_len : 1);
	m.t0 = calloc(m.k > 0 ? m.k : 1, sizeof(*m.t0));
	m.hist = calloc(1, sizeof(*m.hist));
	if (m.conns == NULL || m.events == NULL || m.frame == NULL || tx == NULL ||
	    m.scratch == NULL || m.rbufs == NULL || m.t0 == NULL || m.hist == NULL)
		fail("malloc", ENOMEM);
	for (uint32_t i = 0; i < m.len; i++)
		tx[i] = (uint8_t)((i * 31 + 7) & 0xff);
	m.tx = tx;
	memset(m.scratch, 0, m.scratch_len);
	memset(m.rbufs, 0, m.k > 0 ? m.k * m.rbuf_len : 1);
	for (unsigned long i = 0; i < m.n; i++)
		m.conns[i].fd = -1;
	struct req_hdr ping = {.id = 0, .type = m.type, .payload_len = m.len};
	memcpy(m.frame, &ping, sizeof(ping));
	memcpy(m.frame + sizeof(ping), tx, m.len);
	// GR_HELLO, the same for every connection: id 1, {u32 api_version; char version[128]}.
	struct req_hdr hello = {.id = 1, .type = GR_HELLO,
				.payload_len = sizeof(uint32_t) + HELLO_VERSION_LEN};
	memcpy(m.hello, &hello, sizeof(hello));
	memcpy(m.hello + sizeof(hello), &a->api_version, sizeof(a->api_version));
	snprintf((char *)m.hello + sizeof(hello) + sizeof(uint32_t), HELLO_VERSION_LEN,
		 "sysframe-c-peer");
	m.ep = epoll_create1(EPOLL_CLOEXEC);
	if (m.ep < 0)
		fail("epoll_create1", errno);

	many_connect(&m);
	printf("connected %lu\n", m.n);
	fflush(stdout);
	many_warm_up(&m, a->warmup_ms);

	char line[64];
	if (!a->repeat && m.k == 0) {
		// Nothing to call: hold the connections, idle, until stdin closes.
		while (read_line(line, sizeof(line)))
			;
	} else if (!a->repeat) {
		many_check_idle(&m);
		if (a->wait_go) {
			printf("ready\n");
			fflush(stdout);
			if (!read_line(line, sizeof(line))) {
				fprintf(stderr, "sysframe_ping: stdin closed before the go line\n");
				return 1;
			}
		}
		many_timed_run(&m, a->count, a->rep);
		if (a->wait_go)
			wait_stdin();
	} else {
		// -R, as for one connection: a count, or reconnect (all n closed and opened anew).
		for (;;) {
			wait_stdin();
			if (!read_line(line, sizeof(line)))
				break;
			if (strcmp(line, "reconnect") == 0) {
				many_close(&m);
				many_connect(&m);
				many_warm_up(&m, a->warmup_ms);
				printf("connected %lu\n", m.n);
				fflush(stdout);
				continue;
			}
			if (m.k == 0) {
				fprintf(stderr, "sysframe_ping: -R: '%s': no calls with -A 0 (reconnect only)\n",
					line);
				exit(EXIT_USAGE);
			}
			unsigned long count = parse_command_count(line);
			many_check_idle(&m);
			printf("ready\n");
			fflush(stdout);
			wait_stdin();
			if (!read_line(line, sizeof(line))) {
				fprintf(stderr, "sysframe_ping: stdin closed before the go line\n");
				return 1;
			}
			many_timed_run(&m, count, a->rep);
		}
	}
	many_check_idle(&m);
	many_close(&m);
	close(m.ep);
	free(m.conns);
	free(m.events);
	free(m.frame);
	free(tx);
	free(m.scratch);
	free(m.rbufs);
	free(m.t0);
	free(m.hist);
	return 0;
}

int main(int argc, char **argv) {
	const char *path = getenv("GROUT_SOCK_PATH");
	unsigned long count = 10000, warmup_ms = 0, len = 0, api_version = 11, depth = 1, batch = 0;
	unsigned long many = 0, active = 0;
	const char *batch_arg = NULL, *active_arg = NULL;
	bool ping2 = false, wait_go = false, json = false, framing_given = false,
	     recv_given = false, lean = false, repeat = false;
	char line[64];
	long pin = -1;
	char wait_name[32] = "block";
	static struct peer peer = {.fd = -1};
	int opt;

	if (path == NULL || path[0] == '\0')
		path = "/run/grout.sock";

	opterr = 0; // the errors below are one line each
	while ((opt = getopt(argc, argv, ":s:n:U:l:2f:r:v:W:c:d:b:LwRjM:A:h")) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'n':
			count = parse_num(optarg, 'n', 1, 1000000000ul);
			break;
		case 'U':
			warmup_ms = parse_num(optarg, 'U', 0, WARM_UP_MS_MAX);
			break;
		case 'l':
			len = parse_num(optarg, 'l', 0, GR_API_MAX_MSG_LEN);
			break;
		case '2':
			ping2 = true;
			break;
		case 'f':
			if (strcmp(optarg, "split") == 0)
				peer.split = true;
			else if (strcmp(optarg, "sendmsg") == 0)
				peer.split = false;
			else
				bad_option('f', optarg, "split|sendmsg");
			framing_given = true;
			break;
		case 'r':
			if (strcmp(optarg, "exact") == 0)
				peer.exact = true;
			else if (strcmp(optarg, "readahead") == 0)
				peer.exact = false;
			else
				bad_option('r', optarg, "exact|readahead");
			recv_given = true;
			break;
		case 'v':
			api_version = parse_num(optarg, 'v', 0, UINT32_MAX);
			break;
		case 'W':
			parse_wait(optarg, &peer, wait_name, sizeof(wait_name));
			break;
		case 'c':
			pin = (long)parse_num(optarg, 'c', 0, CPU_SETSIZE - 1);
			break;
		case 'd':
			depth = parse_num(optarg, 'd', 1, DEPTH_MAX);
			break;
		case 'b':
			batch_arg = optarg; // checked against the depth below
			break;
		case 'L':
			lean = true;
			break;
		case 'w':
			wait_go = true;
			break;
		case 'R':
			repeat = wait_go = true;
			break;
		case 'j':
			json = true;
			break;
		case 'M':
			many = parse_num(optarg, 'M', 1, MANY_MAX);
			break;
		case 'A':
			active_arg = optarg; // checked against -M below
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "sysframe_ping: -%c needs a value (see -h)\n", optopt);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "sysframe_ping: unknown option -%c (see -h)\n", optopt);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "sysframe_ping: unexpected argument '%s' (see -h)\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (lean) {
		const char *no = batch_arg != NULL ? "-b: lean mode refills as answers come (leave out -b)"
				 : framing_given && peer.split ? "-f: lean mode sends each refill with one send() (leave out -f split)"
				 : recv_given && peer.exact ? "-r: lean mode reads ahead (leave out -r exact)"
				 : peer.wait == WAIT_SPIN_BLOCK ? "-W: lean mode reads no clock per request: block, spin or yield"
								: NULL;
		if (no != NULL) {
			fprintf(stderr, "sysframe_ping: -L: %s\n", no);
			return EXIT_USAGE;
		}
	}
	batch = batch_arg == NULL ? depth : parse_num(batch_arg, 'b', 1, depth);
	if (depth > 1 && framing_given && peer.split) {
		fprintf(stderr, "sysframe_ping: -f: split is for -d 1 only (a batch leaves in one call)\n");
		return EXIT_USAGE;
	}
	if (depth > 1 && recv_given && peer.exact) {
		fprintf(stderr, "sysframe_ping: -r: exact is for -d 1 only (a pipeline reads ahead)\n");
		return EXIT_USAGE;
	}
	if (active_arg != NULL && many == 0) {
		fprintf(stderr, "sysframe_ping: -A: needs -M (the active ones among its connections)\n");
		return EXIT_USAGE;
	}
	if (many > 0) {
		const char *no = depth > 1 ? "-d: one request in flight per connection (leave out -d)"
				 : batch_arg != NULL ? "-b: one request in flight per connection (leave out -b)"
				 : lean ? "-L: not a mode of -M (leave out -L)"
				 : framing_given && peer.split ? "-f: each request leaves with one send() (leave out -f split)"
				 : recv_given && peer.exact ? "-r: answers are read ahead (leave out -r exact)"
				 : peer.wait != WAIT_BLOCK ? "-W: the connections are waited for in epoll_wait (leave out -W)"
							   : NULL;
		if (no != NULL) {
			fprintf(stderr, "sysframe_ping: -M: %s\n", no);
			return EXIT_USAGE;
		}
		if (active_arg != NULL) {
			char accepted[64];
			snprintf(accepted, sizeof(accepted), "0..%lu, at most -M", many);
			char *end;
			errno = 0;
			active = strtoul(active_arg, &end, 10);
			if (errno != 0 || end == active_arg || *end != '\0' || active_arg[0] == '-' ||
			    active_arg[0] == '+' || active > many)
				bad_option('A', active_arg, accepted);
		} else {
			active = many;
		}
	}
	if (ping2)
		len = PING2_LEN;
	uint32_t type = ping2 ? GR_PING2 : GR_PING;

	if (pin >= 0) {
		cpu_set_t allowed, one;
		if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
			fail("sched_getaffinity", errno);
		if (!CPU_ISSET(pin, &allowed)) {
			fprintf(stderr, "sysframe_ping: -c: CPU %ld is not in the allowed set %s\n", pin,
				cpu_list(&allowed));
			return EXIT_USAGE;
		}
		CPU_ZERO(&one);
		CPU_SET(pin, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			fail("sched_setaffinity", errno);
	}

	if (many > 0) {
		struct report rep = {.json = json, .wait_name = "epoll", .pin = pin, .depth = 1,
				     .batch = 1, .len = len};
		struct many_args a = {.path = path, .api_version = (uint32_t)api_version, .type = type,
				      .len = (uint32_t)len, .n = many, .k = active, .count = count,
				      .warmup_ms = warmup_ms, .wait_go = wait_go, .repeat = repeat,
				      .rep = &rep};
		return many_main(&a);
	}

	// Allocate and touch every buffer now so no page fault lands in the loop.
	uint8_t *tx = malloc(GR_API_MAX_MSG_LEN);
	uint8_t *rx = malloc(GR_API_MAX_MSG_LEN);
	size_t nlat_max = lean ? 1 : count > WARM_UP_CHUNK ? count : WARM_UP_CHUNK;
	uint64_t *lat = malloc(nlat_max * sizeof(*lat));
	if (tx == NULL || rx == NULL || lat == NULL)
		fail("malloc", ENOMEM);
	for (size_t i = 0; i < GR_API_MAX_MSG_LEN; i++)
		tx[i] = (uint8_t)((i * 31 + 7) & 0xff);
	memset(rx, 0, GR_API_MAX_MSG_LEN);
	memset(lat, 0, nlat_max * sizeof(*lat));

	struct lean l = {.depth = (unsigned)depth, .len = (uint32_t)len,
			 .frame = sizeof(struct req_hdr) + len, .last = len > 0 ? tx[len - 1] : 0};
	if (lean) {
		while ((1ul << l.bits) < depth)
			l.bits++;
		l.frames = malloc(depth * l.frame);
		l.slot_id = calloc(depth, sizeof(*l.slot_id));
		l.free_slots = calloc(depth, sizeof(*l.free_slots));
		l.rbuf = malloc(LEAN_READ_AHEAD);
		if (l.frames == NULL || l.slot_id == NULL || l.free_slots == NULL || l.rbuf == NULL)
			fail("malloc", ENOMEM);
		for (unsigned i = 0; i < depth; i++) {
			struct req_hdr h = {.id = 0, .type = type, .payload_len = (uint32_t)len};
			memcpy(l.frames + i * l.frame, &h, sizeof(h));
			memcpy(l.frames + i * l.frame + sizeof(h), tx, len);
		}
		memset(l.rbuf, 0, LEAN_READ_AHEAD);
		for (unsigned s = (unsigned)depth; s > 0; s--)
			l.free_slots[l.nfree++] = s - 1; // slot 0 on top
	}

	struct pipeline q = {.depth = (unsigned)depth, .batch = (unsigned)batch, .type = type,
			     .len = (uint32_t)len, .tx = tx, .ping2 = ping2, .lat = lat, .rx = rx};
	if (depth > 1) {
		while ((1ul << q.bits) < depth)
			q.bits++;
		q.slot_id = calloc(depth, sizeof(*q.slot_id));
		q.slot_t0 = calloc(depth, sizeof(*q.slot_t0));
		q.busy = calloc(depth, sizeof(*q.busy));
		q.free_slots = calloc(depth, sizeof(*q.free_slots));
		q.hdrs = calloc(batch, sizeof(*q.hdrs));
		q.copy = calloc(COPY_MAX, 1);
		q.iov = calloc(IOV_MAX, sizeof(*q.iov));
		if (q.slot_id == NULL || q.slot_t0 == NULL || q.busy == NULL ||
		    q.free_slots == NULL || q.hdrs == NULL || q.copy == NULL || q.iov == NULL)
			fail("calloc", ENOMEM);
		for (unsigned s = (unsigned)depth; s > 0; s--)
			q.free_slots[q.nfree++] = s - 1; // slot 0 on top
	}

	struct hello_args h = {.path = path, .api_version = (uint32_t)api_version};
	uint32_t id = 0;
	connect_hello(&peer, &h, &id, rx);
	l.fd = peer.fd;
	l.wait = peer.wait;
	struct run r = {.peer = &peer, .lean = lean ? &l : NULL, .pipe = depth > 1 && !lean ? &q : NULL,
			.id = id, .type = type, .len = (uint32_t)len, .tx = tx, .rx = rx, .ping2 = ping2,
			.lat = lat, .nlat = nlat_max, .batch = (unsigned)batch};
	struct report rep = {.json = json, .wait_name = wait_name, .pin = pin, .depth = depth,
			     .batch = batch, .len = len};
	warm_up(&r, warmup_ms);

	if (!repeat) {
		if (wait_go) {
			// Let a parent attach perf counters to this process before timing.
			printf("ready\n");
			fflush(stdout);
			if (!read_line(line, sizeof(line))) {
				fprintf(stderr, "sysframe_ping: stdin closed before the go line\n");
				return 1;
			}
		}
		timed_run(&r, count, &rep);
		if (wait_go) {
			// Stay connected until the parent has read the server's side (stdin closed), so
			// that the server's counts of the run end before this connection does.
			wait_stdin();
		}
	} else {
		// -R: each line a command, until stdin closes. Every line is read only once
		// poll() (not a counted kind) said it came, so that what a parent's counters read
		// between "ready" and the end of the summary is always the same: the go line's one
		// read() of its one byte, the timed calls, and the summary's one write().
		for (;;) {
			wait_stdin();
			if (!read_line(line, sizeof(line)))
				break;
			if (strcmp(line, "reconnect") == 0) {
				close(peer.fd);
				peer.rpos = peer.rlen = 0;
				l.rpos = l.rlen = 0;
				connect_hello(&peer, &h, &r.id, rx);
				l.fd = peer.fd;
				warm_up(&r, warmup_ms);
				printf("connected\n");
				fflush(stdout);
				continue;
			}
			unsigned long n = parse_command_count(line);
			grow_latencies(&r, n);
			printf("ready\n");
			fflush(stdout);
			wait_stdin();
			if (!read_line(line, sizeof(line))) {
				fprintf(stderr, "sysframe_ping: stdin closed before the go line\n");
				return 1;
			}
			timed_run(&r, n, &rep);
		}
	}
	close(peer.fd);
	free(q.slot_id);
	free(q.slot_t0);
	free(q.busy);
	free(q.free_slots);
	free(q.hdrs);
	free(q.copy);
	free(q.iov);
	free(l.frames);
	free(l.slot_id);
	free(l.free_slots);
	free(l.rbuf);
	free(r.lat);
	free(rx);
	free(tx);
	return 0;
}
