/*
 * shm_pingpong: the physical limit of a call between two processes on this machine, for the bench's
 * shared-memory rows. Two processes share one memfd page (MAP_SHARED), each pinned to its own CPU, and
 * ping-pong a payload through it, both spinning: the client writes the payload and a sequence number
 * (release), the server waits for the number (acquire), copies the payload into the answer slot and
 * publishes the number back. No syscall per round trip.
 *
 *   shm_pingpong [-n ROUND_TRIPS] [-l PAYLOAD_BYTES] [-c CLIENT_CPU] [-s SERVER_CPU] [-b]
 *
 * Prints one line: round_trips=N payload=L seconds=S calls_per_s=X ns_per_call=Y
 *
 * -b is the bench's protocol: after the warm-up it prints "ready client_pid=P server_pid=Q", waits for
 * a line on stdin, times every round trip (a clock read per call, as the bench's own clients do) and
 * prints one JSON line: seconds, latency percentiles, each side's CPU (getrusage over the timed calls).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOT 4096

struct usage {
    long user_us, sys_us, nvcsw, nivcsw;
};

struct page {
    _Alignas(64) _Atomic uint64_t request_seq;
    _Alignas(64) _Atomic uint64_t answer_seq;
    _Alignas(64) struct usage server; /* the server's CPU over the timed round trips, written before it exits */
    _Alignas(64) unsigned char request[SLOT];
    _Alignas(64) unsigned char answer[SLOT];
};

static void pin(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "shm_pingpong: sched_setaffinity(CPU %d): %s\n", cpu, strerror(errno));
        exit(2);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static struct usage usage_now(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    struct usage r = {u.ru_utime.tv_sec * 1000000L + u.ru_utime.tv_usec, u.ru_stime.tv_sec * 1000000L + u.ru_stime.tv_usec,
                      u.ru_nvcsw, u.ru_nivcsw};
    return r;
}

static struct usage usage_since(struct usage a) {
    struct usage b = usage_now();
    struct usage d = {b.user_us - a.user_us, b.sys_us - a.sys_us, b.nvcsw - a.nvcsw, b.nivcsw - a.nivcsw};
    return d;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static uint64_t nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static long number(const char *opt, const char *v, long min, long max) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < min || n > max) {
        fprintf(stderr, "shm_pingpong: %s %s: expected %ld..%ld\n", opt, v, min, max);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    long rounds = 1000000, len = 32, client_cpu = 1, server_cpu = 0;
    int o, bench = 0;
    while ((o = getopt(argc, argv, "n:l:c:s:b")) != -1) {
        switch (o) {
        case 'n': rounds = number("-n", optarg, 1, 1000000000L); break;
        case 'l': len = number("-l", optarg, 0, SLOT); break;
        case 'c': client_cpu = number("-c", optarg, -1, 1023); break;
        case 's': server_cpu = number("-s", optarg, -1, 1023); break;
        case 'b': bench = 1; break;
        default:
            fprintf(stderr, "usage: shm_pingpong [-n ROUND_TRIPS] [-l PAYLOAD_BYTES] [-c CLIENT_CPU] [-s SERVER_CPU] [-b]\n");
            return 2;
        }
    }
    int fd = memfd_create("shm_pingpong", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, sizeof(struct page)) != 0) {
        fprintf(stderr, "shm_pingpong: memfd: %s\n", strerror(errno));
        return 1;
    }
    struct page *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "shm_pingpong: mmap: %s\n", strerror(errno));
        return 1;
    }
    close(fd);
    pid_t server = fork();
    if (server < 0) {
        fprintf(stderr, "shm_pingpong: fork: %s\n", strerror(errno));
        return 1;
    }
    if (server == 0) {
        pin(server_cpu);
        struct usage start_usage = {0, 0, 0, 0};
        for (uint64_t seq = 1; seq <= (uint64_t) rounds + 1000; seq++) {
            while (atomic_load_explicit(&p->request_seq, memory_order_acquire) != seq) __builtin_ia32_pause();
            memcpy(p->answer, p->request, len);
            atomic_store_explicit(&p->answer_seq, seq, memory_order_release);
            if (seq == 1001) start_usage = usage_now(); /* the first timed answer is out: the timed part starts */
        }
        p->server = usage_since(start_usage);
        _exit(0);
    }
    pin(client_cpu);
    unsigned char payload[SLOT];
    for (long i = 0; i < len; i++) payload[i] = (unsigned char) (i * 7);
    uint64_t *took = NULL;
    if (bench && (took = malloc(sizeof *took * (size_t) rounds)) == NULL) {
        fprintf(stderr, "shm_pingpong: no memory for %ld latencies\n", rounds);
        return 1;
    }
    double start = 0;
    uint64_t prev = 0;
    struct usage start_usage = {0, 0, 0, 0};
    for (uint64_t seq = 1; seq <= (uint64_t) rounds + 1000; seq++) {
        if (seq == 1001) { /* 1000 untimed warm-up round trips */
            if (bench) {
                char line[16];
                printf("ready client_pid=%d server_pid=%d\n", (int) getpid(), (int) server);
                fflush(stdout);
                if (fgets(line, sizeof line, stdin) == NULL) return 1;
            }
            start_usage = usage_now();
            start = now();
            prev = nanos();
        }
        memcpy(p->request, payload, len);
        atomic_store_explicit(&p->request_seq, seq, memory_order_release);
        while (atomic_load_explicit(&p->answer_seq, memory_order_acquire) != seq) __builtin_ia32_pause();
        if (len > 0 && p->answer[len - 1] != payload[len - 1]) {
            fprintf(stderr, "shm_pingpong: answer %llu differs\n", (unsigned long long) seq);
            return 1;
        }
        if (bench && seq > 1000) {
            uint64_t t = nanos();
            took[seq - 1001] = t - prev;
            prev = t;
        }
    }
    double s = now() - start;
    struct usage client = usage_since(start_usage);
    int status;
    waitpid(server, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "shm_pingpong: the server process failed (status %d)\n", status);
        return 1;
    }
    if (!bench) {
        printf("round_trips=%ld payload=%ld seconds=%.3f calls_per_s=%.0f ns_per_call=%.1f\n", rounds, len, s, rounds / s, s * 1e9 / rounds);
        return 0;
    }
    qsort(took, (size_t) rounds, sizeof *took, by_value);
#define AT(q) (unsigned long long) took[(size_t) ((rounds - 1) * (q))]
    printf("{\"round_trips\":%ld,\"payload\":%ld,\"seconds\":%.6f,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,"
           "\"p999_ns\":%llu,\"max_ns\":%llu,\"cpu_user_us\":%ld,\"cpu_sys_us\":%ld,\"nvcsw\":%ld,\"nivcsw\":%ld,"
           "\"server_cpu_user_us\":%ld,\"server_cpu_sys_us\":%ld,\"server_nvcsw\":%ld,\"server_nivcsw\":%ld}\n",
           rounds, len, s, AT(0.5), AT(0.9), AT(0.99), AT(0.999), (unsigned long long) took[rounds - 1],
           client.user_us, client.sys_us, client.nvcsw, client.nivcsw,
           p->server.user_us, p->server.sys_us, p->server.nvcsw, p->server.nivcsw);
    free(took);
    return 0;
}
