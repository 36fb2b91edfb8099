// SPDX-License-Identifier: Apache-2.0
//
// sysframe_serve: a lean C server of Grout's framed API (docs/wire-format.md),
// the server-side anchor the bench compares sysframe's Java server with. It
// answers what every sysframe server answers (GR_HELLO, GR_PING, GR_PING2,
// GR_EVENT_SUBSCRIBE/UNSUBSCRIBE; no events are ever published) and nothing
// more: one thread, one level-triggered epoll loop, one recv() per readiness
// into the connection's read-ahead buffer, every complete request in it
// answered, and all of one connection's answers of that turn sent with one
// writev() (a GR_PING's payload goes out of the input buffer, not copied).
//
// It counts the syscalls of its serving path (accept4, recv, writev,
// epoll_wait) and prints them on command (stdin: stats, reset, quit), with
// its thread's CPU time and its resident memory, so the bench can put it
// beside the Java server: "the server costs what C costs".
//
// An idle connection holds a small struct and no buffer: input and output
// buffers come from a bounded free list when bytes arrive (or must wait to
// leave) and go back to it as soon as no partial frame (no unsent byte) is left.
//
// Build: gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o sysframe_serve sysframe_serve.c

#define _GNU_SOURCE // accept4, SOCK_NONBLOCK, CPU_SET, IOV_MAX
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define GR_HELLO 0xcafe1981u
#define GR_EVENT_SUBSCRIBE 0xcafe1985u
#define GR_EVENT_UNSUBSCRIBE 0xcafe1986u
#define GR_PING 0xcafe1987u
#define GR_PING2 0xcafe1988u
#define GR_API_MAX_MSG_LEN 131072u
#define HDR_LEN 12u // request and response headers alike
#define HELLO_REQ_LEN 132u // u32 api_version; char version[128]
#define SUBSCRIBE_REQ_LEN 8u // bool suppress_self_events; u32 ev_type
#define PING2_LEN 32u
#define MAX_IFACES 1024u // GR_HELLO's answer: the Java server's default (ServerOptions.maxIfaces)
#define API_VERSION_DEFAULT 11u
#define BUF_LEN 8192u // a standard buffer: read-ahead, and output that did not leave at once
#define BUF_ROUND 4096u
// The largest buffer: one whole request of the largest payload, rounded up.
#define BUF_LEN_MAX ((HDR_LEN + GR_API_MAX_MSG_LEN + BUF_ROUND - 1) / BUF_ROUND * BUF_ROUND)
#define FREE_MAX 64 // standard buffers kept for reuse; more are given back to malloc
#define BACKLOG 4096
#define ACCEPT_RETRY_MS 100 // after EMFILE and the like, try accepting again this much later
#define EVENTS_MAX 256
#define CMD_LEN_MAX 256
#define EXIT_USAGE 2

#define EBADMSG_STATUS 74u
#define EMSGSIZE_STATUS 90u
#define ENOTSUP_STATUS 95u

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

// A buffer: standard ones (cap == BUF_LEN) are kept on the free list.
struct buf {
	struct buf *next; // on the free list
	uint32_t cap;
	uint32_t unused;
	uint8_t data[];
};

// One connection: 64 bytes with malloc's overhead, and no buffer while idle.
struct conn {
	struct conn *prev, *next; // every open connection, to close them all at exit
	struct buf *in; // read-ahead: in->data[0..in_len); NULL when no byte is waiting
	struct buf *out; // unsent answers: out->data[out_off..out_off + out_len); NULL when none
	uint32_t in_len;
	uint32_t out_off, out_len;
	int fd;
	bool hello_done;
	bool closing; // a request over the maximum came: close once out has left
};

// The epoll tags of the descriptors that are not connections.
static struct conn tag_listener, tag_stdin, tag_signal;

static struct {
	const char *path;
	uint32_t api_version;
	int ep, lfd, sfd;
	dev_t dev; // the socket file this process bound, so that exit removes no other's
	ino_t ino;
	struct conn *conns;
	struct buf *free;
	unsigned nfree;
	// Accepting stopped (EMFILE, ENFILE, ENOMEM, ...): the listener is out of the epoll set
	// until paused_until, or until a connection closes.
	bool paused, accept_trouble;
	uint64_t paused_until;
	// Counters of the serving path (reset clears all but open and peak).
	uint64_t requests, accepted, accepts, reads, writes, epoll_waits;
	uint64_t open, peak;
	uint64_t cpu_base; // the thread's CPU clock at start or at the last reset
} S;

// The answers of one connection in one turn: headers and the payloads not taken from the
// input buffer are appended to stage; iov lists stage's runs and the input buffer's payloads.
// Each answer is no longer than its request (see dispatch), so stage never holds more than
// the input buffer does: at most BUF_LEN_MAX bytes.
static uint8_t stage[BUF_LEN_MAX] __attribute__((aligned(16)));
static size_t stage_len;
static struct iovec iov[IOV_MAX];
static int niov;
static bool last_in_stage; // iov[niov - 1] is stage's, and ends at stage_len
static size_t answer_bytes;

static void fail(const char *what, int err) {
	fprintf(stderr, "sysframe_serve: %s: %s\n", what, strerror(err));
	exit(1);
}

static void usage(FILE *f) {
	fprintf(f,
		"usage: sysframe_serve -s PATH [-c CPU] [-v API_VERSION] [-h]\n"
		"  -s PATH        socket path (a stale socket file there is removed; the new one has mode 0600)\n"
		"  -c CPU         pin the process to CPU (one of its allowed CPUs)\n"
		"  -v VERSION     the api_version GR_HELLO must carry (default %u)\n"
		"  -h             this help\n"
		"Prints 'ready PID' once listening. Commands on stdin, one a line:\n"
		"  stats  one JSON line: requests, accepted, open, peak, reads, writes, epoll_waits,\n"
		"         accepts, cpu_ns (the thread's CPU time since start or reset), rss_kb (resident\n"
		"         memory now; -1 when /proc/self/statm cannot be opened, e.g. out of descriptors)\n"
		"  reset  zero the counters (not open and peak) and the CPU time; prints 'ok'\n"
		"  quit   close everything, remove the socket file, exit 0 (so do EOF, SIGTERM, SIGINT)\n"
		"Usage errors exit with 2, other failures with 1.\n",
		API_VERSION_DEFAULT);
}

static unsigned long parse_num(const char *arg, char opt, unsigned long min, unsigned long max) {
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "sysframe_serve: -%c: invalid value '%s' (%lu..%lu)\n", opt, arg, min, max);
		exit(EXIT_USAGE);
	}
	return v;
}

static uint64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t thread_cpu_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// A buffer of at least len bytes: a standard one from the free list when it fits, else malloc's.
static struct buf *buf_get(uint32_t len) {
	struct buf *b;
	if (len <= BUF_LEN) {
		if (S.free != NULL) {
			b = S.free;
			S.free = b->next;
			S.nfree--;
			return b;
		}
		len = BUF_LEN;
	}
	b = malloc(sizeof(*b) + len);
	if (b != NULL)
		b->cap = len;
	return b;
}

static void buf_put(struct buf *b) {
	if (b->cap == BUF_LEN && S.nfree < FREE_MAX) {
		b->next = S.free;
		S.free = b;
		S.nfree++;
	} else {
		free(b);
	}
}

static void ep_ctl(int op, int fd, uint32_t events, void *tag) {
	struct epoll_event ev = {.events = events, .data.ptr = tag};
	if (epoll_ctl(S.ep, op, fd, &ev) < 0)
		fail("epoll_ctl", errno);
}

// Stops accepting for ACCEPT_RETRY_MS (or until a connection closes); one line per episode,
// which ends when the backlog is empty (accept4 says EAGAIN): while connections wait that
// cannot all be taken, each closed one lets one more in and the next accept4 fails again.
static void pause_accepting(const char *what, int err) {
	if (!S.accept_trouble) {
		fprintf(stderr, "sysframe_serve: %s: %s (%" PRIu64 " connections open): accepting again in %d ms "
				"or when a connection closes\n",
			what, strerror(err), S.open, ACCEPT_RETRY_MS);
		S.accept_trouble = true;
	}
	if (!S.paused) {
		ep_ctl(EPOLL_CTL_DEL, S.lfd, 0, NULL);
		S.paused = true;
	}
	S.paused_until = now_ms() + ACCEPT_RETRY_MS;
}

static void resume_accepting(void) {
	ep_ctl(EPOLL_CTL_ADD, S.lfd, EPOLLIN, &tag_listener);
	S.paused = false;
}

static void conn_close(struct conn *c) {
	close(c->fd);
	if (c->in != NULL)
		buf_put(c->in);
	if (c->out != NULL)
		buf_put(c->out);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		S.conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	free(c);
	S.open--;
	if (S.paused)
		resume_accepting(); // an fd (and some memory) is free again
}

static void on_listener(void) {
	for (;;) {
		int fd = accept4(S.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		S.accepts++;
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				S.accept_trouble = false; // caught up with the backlog: the episode is over
				return;
			}
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			// EMFILE, ENFILE, ENOMEM, ENOBUFS, or anything else: the listener stays readable, so
			// level-triggered epoll would spin on it. Stop watching it for a while.
			pause_accepting("accept4", errno);
			return;
		}
		struct conn *c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(fd);
			pause_accepting("accept4: a connection's struct", ENOMEM);
			return;
		}
		c->fd = fd;
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
		if (epoll_ctl(S.ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			int err = errno;
			close(fd);
			free(c);
			pause_accepting("epoll_ctl of an accepted connection", err);
			return;
		}
		c->next = S.conns;
		if (S.conns != NULL)
			S.conns->prev = c;
		S.conns = c;
		S.accepted++;
		if (++S.open > S.peak)
			S.peak = S.open;
	}
}

// Appends bytes to stage, extending its last run when the previous entry was stage's.
static void stage_put(const void *p, size_t n) {
	uint8_t *at = stage + stage_len;
	memcpy(at, p, n);
	stage_len += n;
	if (last_in_stage) {
		iov[niov - 1].iov_len += n;
	} else {
		iov[niov++] = (struct iovec){.iov_base = at, .iov_len = n};
		last_in_stage = true;
	}
}

// One answer. A payload of the input buffer (ref) is sent from there while the iovec has room
// for it and one stage run after it; otherwise it is copied.
static void answer(uint32_t id, uint32_t status, const void *payload, uint32_t len, bool ref) {
	struct resp_hdr h = {.for_id = id, .status = status, .payload_len = len};
	stage_put(&h, sizeof(h));
	answer_bytes += sizeof(h) + len;
	if (len == 0)
		return;
	if (ref && niov + 2 <= IOV_MAX) {
		iov[niov++] = (struct iovec){.iov_base = (void *)payload, .iov_len = len};
		last_in_stage = false;
	} else {
		stage_put(payload, len);
	}
}

// Every answer is at most as long as its request: 12 + len for a request of 12 + len
// (GR_PING), 44 for >= 44 (GR_PING2), 14 or 16 for >= 144 (GR_HELLO), else 12.
static void dispatch(struct conn *c, const struct req_hdr *h, const uint8_t *p) {
	uint32_t len = h->payload_len;
	S.requests++;
	if (!c->hello_done && h->type != GR_HELLO) {
		answer(h->id, EBADMSG_STATUS, NULL, 0, false); // as the Java server: GR_HELLO comes first
		return;
	}
	switch (h->type) {
	case GR_PING:
		answer(h->id, 0, p, len, true);
		break;
	case GR_PING2:
		if (len < PING2_LEN)
			answer(h->id, EMSGSIZE_STATUS, NULL, 0, false);
		else
			answer(h->id, 0, p, PING2_LEN, true);
		break;
	case GR_HELLO: {
		if (len < HELLO_REQ_LEN) {
			answer(h->id, EMSGSIZE_STATUS, NULL, 0, false);
			break;
		}
		uint32_t theirs;
		memcpy(&theirs, p, sizeof(theirs));
		if (theirs != S.api_version) {
			// The version this server speaks goes with the refusal, as the Java server's does.
			answer(h->id, EBADMSG_STATUS, &S.api_version, sizeof(S.api_version), false);
			break;
		}
		c->hello_done = true;
		uint16_t max_ifaces = MAX_IFACES;
		answer(h->id, 0, &max_ifaces, sizeof(max_ifaces), false);
		break;
	}
	case GR_EVENT_SUBSCRIBE:
		answer(h->id, len < SUBSCRIBE_REQ_LEN ? EMSGSIZE_STATUS : 0, NULL, 0, false);
		break;
	case GR_EVENT_UNSUBSCRIBE:
		answer(h->id, 0, NULL, 0, false);
		break;
	default:
		answer(h->id, ENOTSUP_STATUS, NULL, 0, false);
		break;
	}
}

// Sends the turn's answers with one writev(); what the socket did not take is copied into the
// connection's output buffer, and the connection waits for EPOLLOUT (reading nothing meanwhile).
// False when the connection was closed.
static bool send_answers(struct conn *c) {
	ssize_t n = writev(c->fd, iov, niov);
	S.writes++;
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			conn_close(c); // EPIPE, ECONNRESET: the peer is gone
			return false;
		}
		n = 0;
	}
	size_t done = (size_t)n;
	if (done == answer_bytes)
		return true;
	uint32_t unsent = (uint32_t)(answer_bytes - done);
	struct buf *b = buf_get(unsent);
	if (b == NULL) {
		fprintf(stderr, "sysframe_serve: fd %d: no memory for %u unsent bytes: closing the connection\n",
			c->fd, unsent);
		conn_close(c);
		return false;
	}
	uint32_t at = 0;
	for (int i = 0; i < niov; i++) {
		size_t l = iov[i].iov_len;
		if (done >= l) {
			done -= l;
			continue;
		}
		memcpy(b->data + at, (uint8_t *)iov[i].iov_base + done, l - done);
		at += (uint32_t)(l - done);
		done = 0;
	}
	c->out = b;
	c->out_off = 0;
	c->out_len = unsent;
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
	if (epoll_ctl(S.ep, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		fail("epoll_ctl", errno);
	return true;
}

// Every complete request in the input buffer is answered; the answers leave together; a
// partial request is moved to the buffer's start (in a larger buffer if it needs one), and
// the buffer goes back to the free list when nothing is left in it.
static void serve(struct conn *c) {
	uint8_t *d = c->in->data;
	uint32_t len = c->in_len, at = 0, need = 0;
	stage_len = 0;
	niov = 0;
	last_in_stage = false;
	answer_bytes = 0;
	while (len - at >= HDR_LEN) {
		struct req_hdr h;
		memcpy(&h, d + at, sizeof(h));
		if (h.payload_len > GR_API_MAX_MSG_LEN) {
			fprintf(stderr, "sysframe_serve: fd %d: request payload_len %u over GR_API_MAX_MSG_LEN %u: "
					"closing the connection\n",
				c->fd, h.payload_len, GR_API_MAX_MSG_LEN);
			c->closing = true; // the answers to the requests before it leave first
			break;
		}
		if (len - at - HDR_LEN < h.payload_len) {
			need = HDR_LEN + h.payload_len;
			break;
		}
		dispatch(c, &h, d + at + HDR_LEN);
		at += HDR_LEN + h.payload_len;
	}
	if (niov > 0 && !send_answers(c))
		return;
	if (c->closing) {
		if (c->out == NULL)
			conn_close(c);
		// else: closed once its output has left (on_writable); nothing more is read
		return;
	}
	uint32_t rest = len - at;
	if (rest == 0) {
		buf_put(c->in);
		c->in = NULL;
		c->in_len = 0;
		return;
	}
	if (need > c->in->cap) {
		uint32_t cap = (need + BUF_ROUND - 1) / BUF_ROUND * BUF_ROUND;
		struct buf *b = malloc(sizeof(*b) + cap);
		if (b == NULL) {
			fprintf(stderr, "sysframe_serve: fd %d: no memory for a request of %u bytes: closing the connection\n",
				c->fd, need);
			conn_close(c);
			return;
		}
		b->cap = cap;
		memcpy(b->data, d + at, rest);
		buf_put(c->in);
		c->in = b;
	} else if (at > 0) {
		memmove(d, d + at, rest);
	}
	c->in_len = rest;
}

// One recv() per readiness: level-triggered epoll reports the socket again if more is waiting.
static void on_readable(struct conn *c) {
	if (c->in == NULL) {
		c->in = buf_get(BUF_LEN);
		if (c->in == NULL) {
			fprintf(stderr, "sysframe_serve: fd %d: no memory for an input buffer: closing the connection\n",
				c->fd);
			conn_close(c);
			return;
		}
		c->in_len = 0;
	}
	ssize_t n = recv(c->fd, c->in->data + c->in_len, c->in->cap - c->in_len, 0);
	S.reads++;
	if (n > 0) {
		c->in_len += (uint32_t)n;
		serve(c);
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		if (c->in_len == 0) {
			buf_put(c->in);
			c->in = NULL;
		}
		return;
	}
	conn_close(c); // EOF (a partial request is dropped with it), or ECONNRESET and the like
}

static void on_writable(struct conn *c) {
	struct iovec v = {.iov_base = c->out->data + c->out_off, .iov_len = c->out_len};
	ssize_t n = writev(c->fd, &v, 1);
	S.writes++;
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			conn_close(c);
		return;
	}
	c->out_off += (uint32_t)n;
	c->out_len -= (uint32_t)n;
	if (c->out_len > 0)
		return;
	buf_put(c->out);
	c->out = NULL;
	if (c->closing) {
		conn_close(c);
		return;
	}
	// Read again; bytes that came meanwhile make the socket readable at once (level-triggered).
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
	if (epoll_ctl(S.ep, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		fail("epoll_ctl", errno);
}

static void on_conn(struct conn *c, uint32_t events) {
	if (c->out != NULL) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			on_writable(c);
	} else if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
		on_readable(c);
	}
}

// Resident memory now, from /proc/self/statm's second field (pages).
static long rss_kb(void) {
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL)
		return -1;
	long size, resident;
	int got = fscanf(f, "%ld %ld", &size, &resident);
	fclose(f);
	return got == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

// Closes every connection and the listener, removes the socket file if it is still ours, exits 0.
static void quit(void) {
	while (S.conns != NULL)
		conn_close(S.conns);
	while (S.free != NULL) {
		struct buf *b = S.free;
		S.free = b->next;
		free(b);
	}
	close(S.lfd);
	struct stat st;
	if (lstat(S.path, &st) == 0 && st.st_dev == S.dev && st.st_ino == S.ino)
		unlink(S.path);
	fflush(stdout);
	exit(0);
}

// One command line; false for quit.
static bool run_command(char *line) {
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0')
		return true;
	if (strcmp(line, "stats") == 0) {
		printf("{\"requests\":%" PRIu64 ",\"accepted\":%" PRIu64 ",\"open\":%" PRIu64 ",\"peak\":%" PRIu64
		       ",\"reads\":%" PRIu64 ",\"writes\":%" PRIu64 ",\"epoll_waits\":%" PRIu64 ",\"accepts\":%" PRIu64
		       ",\"cpu_ns\":%" PRIu64 ",\"rss_kb\":%ld}\n",
		       S.requests, S.accepted, S.open, S.peak, S.reads, S.writes, S.epoll_waits, S.accepts,
		       thread_cpu_ns() - S.cpu_base, rss_kb());
	} else if (strcmp(line, "reset") == 0) {
		S.requests = S.accepted = S.accepts = S.reads = S.writes = S.epoll_waits = 0;
		S.cpu_base = thread_cpu_ns();
		printf("ok\n");
	} else if (strcmp(line, "quit") == 0) {
		return false;
	} else {
		printf("error: unknown command '%.64s' (stats, reset, quit)\n", line);
	}
	fflush(stdout);
	return true;
}

// Commands, one a line; a line too long for the buffer is refused whole. False for quit or EOF.
static bool on_stdin(void) {
	static char line[CMD_LEN_MAX];
	static size_t len;
	static bool overlong;
	char chunk[512];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0) {
		if (len > 0 && !overlong) { // a last command without its newline
			line[len] = '\0';
			run_command(line);
		}
		return false;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (chunk[i] != '\n') {
			if (len + 1 < sizeof(line))
				line[len++] = chunk[i];
			else
				overlong = true;
			continue;
		}
		line[len] = '\0';
		bool go_on = true;
		if (overlong) {
			printf("error: command longer than %d bytes\n", CMD_LEN_MAX - 1);
			fflush(stdout);
		} else {
			go_on = run_command(line);
		}
		len = 0;
		overlong = false;
		if (!go_on)
			return false;
	}
	return true;
}

static void listen_on(const char *path) {
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "sysframe_serve: -s: path longer than %zu bytes\n", sizeof(sa.sun_path) - 1);
		exit(EXIT_USAGE);
	}
	strcpy(sa.sun_path, path);
	// A socket file left by a server that is gone is removed; a live server's is not, nor anything else.
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "sysframe_serve: %s exists and is not a socket\n", path);
			exit(1);
		}
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (probe < 0)
			fail("socket", errno);
		int r = connect(probe, (struct sockaddr *)&sa, sizeof(sa));
		int err = errno;
		close(probe);
		if (r == 0 || err == EAGAIN) {
			fprintf(stderr, "sysframe_serve: %s: a server is listening there\n", path);
			exit(1);
		}
		if (err != ECONNREFUSED) {
			fprintf(stderr, "sysframe_serve: %s: cannot tell whether a server listens there: %s\n", path,
				strerror(err));
			exit(1);
		}
		if (unlink(path) < 0 && errno != ENOENT)
			fail("unlink of the stale socket file", errno);
	}
	S.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (S.lfd < 0)
		fail("socket", errno);
	mode_t old = umask(0177); // the file is born 0600: no moment when others may connect
	int r = bind(S.lfd, (struct sockaddr *)&sa, sizeof(sa));
	int err = errno;
	umask(old);
	if (r < 0)
		fail(path, err);
	if (chmod(path, 0600) < 0)
		fail("chmod", errno);
	if (lstat(path, &st) < 0)
		fail("lstat", errno);
	S.dev = st.st_dev;
	S.ino = st.st_ino;
	if (listen(S.lfd, BACKLOG) < 0)
		fail("listen", errno);
}

int main(int argc, char **argv) {
	const char *path = NULL;
	long pin = -1;
	S.api_version = API_VERSION_DEFAULT;
	int opt;
	while ((opt = getopt(argc, argv, ":s:c:v:h")) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'c':
			pin = (long)parse_num(optarg, 'c', 0, CPU_SETSIZE - 1);
			break;
		case 'v':
			S.api_version = (uint32_t)parse_num(optarg, 'v', 0, UINT32_MAX);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "sysframe_serve: -%c needs a value (see -h)\n", optopt);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "sysframe_serve: unknown option -%c (see -h)\n", optopt);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "sysframe_serve: unexpected argument '%s' (see -h)\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (path == NULL || path[0] == '\0') {
		fprintf(stderr, "sysframe_serve: -s PATH is required (see -h)\n");
		return EXIT_USAGE;
	}
	S.path = path;

	if (pin >= 0) {
		cpu_set_t allowed, one;
		if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
			fail("sched_getaffinity", errno);
		if (!CPU_ISSET(pin, &allowed)) {
			fprintf(stderr, "sysframe_serve: -c: CPU %ld is not one this process may run on\n", pin);
			return EXIT_USAGE;
		}
		CPU_ZERO(&one);
		CPU_SET(pin, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			fail("sched_setaffinity", errno);
	}

	// A peer gone mid-write is an EPIPE from writev, not a signal. SIGTERM and SIGINT arrive
	// through a signalfd in the epoll set, so the loop ends cleanly between two turns.
	signal(SIGPIPE, SIG_IGN);
	// As many connections as the hard limit allows: the soft limit raised to it (a JVM does the same at start).
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			fprintf(stderr, "sysframe_serve: setrlimit(RLIMIT_NOFILE): %s: serving within the soft limit\n", strerror(errno));
	}
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0)
		fail("sigprocmask", errno);
	S.sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (S.sfd < 0)
		fail("signalfd", errno);

	listen_on(path);

	// Level-triggered: one recv() per readiness and no more, because a socket that still holds
	// bytes after it is reported again by the next epoll_wait. Edge-triggered would need a
	// recv() until EAGAIN on every readiness (a second, empty one per request for a client
	// waiting for each answer), or a list of its own of the sockets not yet drained.
	S.ep = epoll_create1(EPOLL_CLOEXEC);
	if (S.ep < 0)
		fail("epoll_create1", errno);
	ep_ctl(EPOLL_CTL_ADD, S.lfd, EPOLLIN, &tag_listener);
	ep_ctl(EPOLL_CTL_ADD, S.sfd, EPOLLIN, &tag_signal);
	struct epoll_event sev = {.events = EPOLLIN, .data.ptr = &tag_stdin};
	if (epoll_ctl(S.ep, EPOLL_CTL_ADD, STDIN_FILENO, &sev) < 0) {
		if (errno != EPERM)
			fail("epoll_ctl of stdin", errno);
		// A regular file or /dev/null cannot be watched: serve without commands.
		fprintf(stderr, "sysframe_serve: stdin cannot be polled: no commands; stop with SIGTERM\n");
	}
	S.cpu_base = thread_cpu_ns();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);

	struct epoll_event evs[EVENTS_MAX];
	for (;;) {
		int timeout = -1;
		if (S.paused) {
			uint64_t now = now_ms();
			if (now >= S.paused_until)
				resume_accepting();
			else
				timeout = (int)(S.paused_until - now);
		}
		S.epoll_waits++;
		int n = epoll_wait(S.ep, evs, EVENTS_MAX, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("epoll_wait", errno);
		}
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &tag_listener) {
				on_listener();
			} else if (tag == &tag_stdin) {
				if (!on_stdin())
					quit();
			} else if (tag == &tag_signal) {
				struct signalfd_siginfo si;
				if (read(S.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
					quit();
			} else {
				on_conn(tag, evs[i].events);
			}
		}
	}
}
