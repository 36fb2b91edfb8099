package org.sysframe.transport.internal.server;

import org.junit.jupiter.api.Test;
import org.sysframe.transport.WaitMode;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a loop with shared-memory channels waits: as the most eager of its own mode and its channels'. */
class LoopChannelsTest {
    static final WaitMode SPIN_50US = WaitMode.spinThenBlock(Duration.ofNanos(50_000));
    static final WaitMode SPIN_1MS = WaitMode.spinThenBlock(Duration.ofMillis(1));

    @Test
    void spinThenYieldThenTheLongerSpinBeforeABlockThenBlock() {
        WaitMode[] order = {WaitMode.SPIN, WaitMode.YIELD, SPIN_1MS, SPIN_50US, WaitMode.BLOCK};
        for (int i = 0; i < order.length; i++) {
            for (int j = 0; j < order.length; j++) {
                WaitMode want = order[Math.min(i, j)];
                assertEquals(want, LoopChannels.eager(order[i], order[j]), order[i] + " and " + order[j]);
            }
        }
    }
}
