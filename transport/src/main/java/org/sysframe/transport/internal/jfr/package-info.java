/**
 * Internal to the transport, not exported: the JDK Flight Recorder events of clients and servers (names
 * {@code org.sysframe.*}, category "sysframe"). Each is checked with a static probe's
 * {@code isEnabled()} before anything is allocated, so with no recording the hot path allocates nothing.
 */
package org.sysframe.transport.internal.jfr;
