/**
 * The wire format of Grout's API: message types and limits ({@link org.sysframe.transport.wire.GroutApi}),
 * the request, response and event headers read and written in place, and the table of declared minimum
 * sizes and streams ({@link org.sysframe.transport.wire.MessageSpecs}). Depends on no other package of the module.
 */
package org.sysframe.transport.wire;
