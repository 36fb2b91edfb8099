/**
 * Internal to the transport, not exported: the epoll server driver (EpollDriver, EpollSocket) and the
 * client's plain socket link with its receive waits. Depends on internal.server and internal.io, never
 * on internal.uring.
 */
package org.sysframe.transport.internal.epoll;
