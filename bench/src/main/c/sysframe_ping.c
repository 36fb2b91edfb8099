// SPDX-License-Identifier: Apache-2.0
//
// sysframe_ping: a C peer of the Java sysframe client, doing what Grout's
// ping_perf does (GR_HELLO, then COUNT synchronous GR_PING calls) so both can
// be measured against the same server. The framing (-f) and receive (-r)
// strategies are selectable to compare the ones discussed in PROTOCOL.md.
//
// Build: gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o sysframe_ping sysframe_ping.c

#define _GNU_SOURCE // RUSAGE_THREAD
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

struct peer {
	int fd;
	bool split; // -f split: two send() calls instead of one sendmsg()
	bool exact; // -r exact: no read-ahead buffer
	size_t rpos, rlen; // unread bytes are rbuf[rpos..rlen)
	uint8_t rbuf[READ_AHEAD_LEN];
};

static void fail(const char *what, int err) {
	fprintf(stderr, "sysframe_ping: %s: %s\n", what, strerror(err));
	exit(1);
}

static void usage(FILE *f) {
	fprintf(f,
		"usage: sysframe_ping [-s SOCK] [-n COUNT] [-l LEN] [-2] [-f split|sendmsg]\n"
		"                     [-r exact|readahead] [-v API_VERSION] [-w] [-j]\n"
		"  -s SOCK     socket path (default $GROUT_SOCK_PATH, else /run/grout.sock)\n"
		"  -n COUNT    number of timed calls (default 10000)\n"
		"  -l LEN      GR_PING payload length, 0..%u (default 0)\n"
		"  -2          send GR_PING2 with a %u-byte payload (overrides -l)\n"
		"  -f MODE     split: send(header) + send(payload); sendmsg: one sendmsg (default)\n"
		"  -r MODE     exact: recv(header) + recv(payload); readahead: %d-byte buffer (default)\n"
		"  -v VERSION  api_version sent in GR_HELLO (default 11)\n"
		"  -w          after GR_HELLO print 'ready' and wait for a line on stdin\n"
		"  -j          also print a one-line JSON summary\n",
		GR_API_MAX_MSG_LEN, PING2_LEN, READ_AHEAD_LEN);
}

static unsigned long parse_num(const char *arg, char opt, unsigned long min, unsigned long max) {
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "sysframe_ping: -%c: invalid value '%s' (%lu..%lu)\n", opt, arg, min,
			max);
		exit(1);
	}
	return v;
}

// One send() per buffer; loops because a stream socket may take only part of it.
static void send_full(int fd, const void *buf, size_t len) {
	const uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("send", errno);
		}
		p += n;
		len -= (size_t)n;
	}
}

// Header and payload in one sendmsg(), without copying them together. On a
// partial write, skip the fully written entries and trim the first remaining one.
static void sendmsg_full(int fd, struct iovec *iov, size_t cnt) {
	while (cnt > 0) {
		struct msghdr msg = {.msg_iov = iov, .msg_iovlen = cnt};
		ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
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

// recv() until len bytes have arrived; EOF inside a frame means the peer is gone.
static void recv_full(int fd, void *buf, size_t len) {
	uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = recv(fd, p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("recv", errno);
		}
		if (n == 0)
			fail("recv", ECONNRESET);
		p += n;
		len -= (size_t)n;
	}
}

// Read-ahead: make sure a whole header is buffered, pulling as much as fits
// per recv() so that a small response (header + payload) costs one syscall.
static void ra_header(struct peer *p, struct resp_hdr *h) {
	while (p->rlen - p->rpos < sizeof(*h)) {
		if (p->rpos > 0) { // keep the partial header at the front to make room
			memmove(p->rbuf, p->rbuf + p->rpos, p->rlen - p->rpos);
			p->rlen -= p->rpos;
			p->rpos = 0;
		}
		ssize_t n = recv(p->fd, p->rbuf + p->rlen, sizeof(p->rbuf) - p->rlen, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("recv", errno);
		}
		if (n == 0)
			fail("recv", ECONNRESET);
		p->rlen += (size_t)n;
	}
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
		recv_full(p->fd, (uint8_t *)dst + avail, len - avail);
}

// One request/response round trip. The response payload lands in rx, which
// holds GR_API_MAX_MSG_LEN bytes. Status and payload are left to the caller.
static void call(struct peer *p, uint32_t id, uint32_t type, const void *payload, uint32_t len,
		 struct resp_hdr *resp, void *rx) {
	struct req_hdr req = {.id = id, .type = type, .payload_len = len};

	if (p->split) {
		send_full(p->fd, &req, sizeof(req));
		if (len > 0)
			send_full(p->fd, payload, len);
	} else {
		struct iovec iov[2] = {
			{.iov_base = &req, .iov_len = sizeof(req)},
			{.iov_base = (void *)payload, .iov_len = len},
		};
		sendmsg_full(p->fd, iov, len > 0 ? 2 : 1);
	}

	if (p->exact)
		recv_full(p->fd, resp, sizeof(*resp));
	else
		ra_header(p, resp);
	if (resp->payload_len > GR_API_MAX_MSG_LEN)
		fail("response payload_len over GR_API_MAX_MSG_LEN", EMSGSIZE);
	// Drain the payload even if the response is going to be rejected, so the
	// message boundary stays right (and the error reported is the real one).
	if (p->exact)
		recv_full(p->fd, rx, resp->payload_len);
	else
		ra_payload(p, rx, resp->payload_len);
	if (resp->for_id != id) {
		fprintf(stderr, "sysframe_ping: response for_id %" PRIu32 ", expected %" PRIu32 "\n",
			resp->for_id, id);
		exit(1);
	}
}

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(struct timeval tv) {
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
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

int main(int argc, char **argv) {
	const char *path = getenv("GROUT_SOCK_PATH");
	unsigned long count = 10000, len = 0, api_version = 11;
	bool ping2 = false, wait_go = false, json = false;
	static struct peer peer = {.fd = -1};
	int opt;

	if (path == NULL || path[0] == '\0')
		path = "/run/grout.sock";

	while ((opt = getopt(argc, argv, "s:n:l:2f:r:v:wjh")) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'n':
			count = parse_num(optarg, 'n', 1, 1000000000ul);
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
				goto bad_usage;
			break;
		case 'r':
			if (strcmp(optarg, "exact") == 0)
				peer.exact = true;
			else if (strcmp(optarg, "readahead") == 0)
				peer.exact = false;
			else
				goto bad_usage;
			break;
		case 'v':
			api_version = parse_num(optarg, 'v', 0, UINT32_MAX);
			break;
		case 'w':
			wait_go = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad_usage;
		}
	}
	if (optind != argc)
		goto bad_usage;
	if (ping2)
		len = PING2_LEN;
	uint32_t type = ping2 ? GR_PING2 : GR_PING;

	// Allocate and touch every buffer now so no page fault lands in the loop.
	uint8_t *tx = malloc(GR_API_MAX_MSG_LEN);
	uint8_t *rx = malloc(GR_API_MAX_MSG_LEN);
	uint64_t *lat = malloc(count * sizeof(*lat));
	if (tx == NULL || rx == NULL || lat == NULL)
		fail("malloc", ENOMEM);
	for (size_t i = 0; i < GR_API_MAX_MSG_LEN; i++)
		tx[i] = (uint8_t)((i * 31 + 7) & 0xff);
	memset(rx, 0, GR_API_MAX_MSG_LEN);
	memset(lat, 0, count * sizeof(*lat));

	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(addr.sun_path))
		fail(path, ENAMETOOLONG);
	strcpy(addr.sun_path, path);
	peer.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (peer.fd < 0)
		fail("socket", errno);
	if (connect(peer.fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		fail(path, errno);

	// GR_HELLO must come first: {u32 api_version; char version[128]} -> u16.
	uint32_t id = 1;
	uint8_t hello[sizeof(uint32_t) + HELLO_VERSION_LEN] = {0};
	uint32_t ver = (uint32_t)api_version;
	memcpy(hello, &ver, sizeof(ver));
	snprintf((char *)hello + sizeof(ver), HELLO_VERSION_LEN, "sysframe-c-peer");
	struct resp_hdr resp;
	call(&peer, id, GR_HELLO, hello, sizeof(hello), &resp, rx);
	if (resp.status != 0)
		fail("GR_HELLO (api version mismatch if EBADMSG; see -v)", (int)resp.status);
	if (resp.payload_len != sizeof(uint16_t)) {
		fprintf(stderr, "sysframe_ping: GR_HELLO response payload_len %" PRIu32 ", expected 2\n",
			resp.payload_len);
		return 1;
	}

	if (wait_go) {
		// Let a parent attach perf counters to this process before timing.
		char line[64];
		printf("ready\n");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL) {
			fprintf(stderr, "sysframe_ping: stdin closed before the go line\n");
			return 1;
		}
	}

	struct rusage ru0, ru1;
	if (getrusage(RUSAGE_THREAD, &ru0) < 0)
		fail("getrusage", errno);
	uint64_t start = now_ns();
	for (unsigned long i = 0; i < count; i++) {
		uint64_t t0 = now_ns();
		call(&peer, ++id, type, tx, (uint32_t)len, &resp, rx);
		lat[i] = now_ns() - t0;
		if (resp.status != 0)
			fail(ping2 ? "GR_PING2 response status" : "GR_PING response status",
			     (int)resp.status);
		if (resp.payload_len != len) {
			fprintf(stderr, "sysframe_ping: call %lu: payload_len %" PRIu32 ", sent %lu\n",
				i + 1, resp.payload_len, len);
			return 1;
		}
		if (memcmp(rx, tx, len) != 0) {
			fprintf(stderr, "sysframe_ping: call %lu: echoed payload differs\n", i + 1);
			return 1;
		}
	}
	uint64_t total_ns = now_ns() - start;
	if (getrusage(RUSAGE_THREAD, &ru1) < 0)
		fail("getrusage", errno);
	close(peer.fd);

	double secs = (double)total_ns / 1e9;
	double rate = (double)count / secs;
	printf("total time: %.3f s (%.1f calls/s)\n", secs, rate);

	if (json) {
		qsort(lat, count, sizeof(*lat), cmp_u64);
		printf("{\"peer\":\"c\",\"framing\":\"%s\",\"recv\":\"%s\",\"count\":%lu,\"len\":%lu,"
		       "\"seconds\":%.6f,\"calls_per_sec\":%.1f,"
		       "\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
		       ",\"p999_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ","
		       "\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
		       ",\"nvcsw\":%ld,\"nivcsw\":%ld}\n",
		       peer.split ? "split" : "sendmsg", peer.exact ? "exact" : "readahead", count, len,
		       secs, rate, percentile(lat, count, 500), percentile(lat, count, 900),
		       percentile(lat, count, 990), percentile(lat, count, 999), lat[count - 1],
		       tv_us(ru1.ru_utime) - tv_us(ru0.ru_utime),
		       tv_us(ru1.ru_stime) - tv_us(ru0.ru_stime), ru1.ru_nvcsw - ru0.ru_nvcsw,
		       ru1.ru_nivcsw - ru0.ru_nivcsw);
	}
	free(lat);
	free(rx);
	free(tx);
	return 0;

bad_usage:
	usage(stderr);
	return 1;
}
