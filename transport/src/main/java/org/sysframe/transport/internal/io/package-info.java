/**
 * Internal to the transport, not exported: the parts client and server share to move frames: the
 * message writer and reader, input and output buffers, the server's output batch and unsent queue, the
 * flushes a pipeline waits for, the memory budget, rate-limited logging, the wait loop.
 */
package org.sysframe.transport.internal.io;
