/**
 * The shared-memory channel: a sealed memfd, passed over the connection's socket after GR_HELLO,
 * holding two single-producer single-consumer byte rings (requests, answers and events) that carry
 * the same bytes as the socket would; the socket stays open and its end is how each side learns the
 * other is gone. See docs/shared-memory.md.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
package org.sysframe.transport.internal.shm;
