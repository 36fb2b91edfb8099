package org.sysframe.bench.explore;

import org.sysframe.bench.measure.Spread;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code tune} says about one parameter, from each candidate value's gain over the default
 * (the default's time per call of the workload over the candidate's, round by round). The rule:
 * a value is recommended only when the whole [min-max] of its gain is above 1 and no other such value's
 * spread overlaps its own; when several clear the default together, there is no clear winner among them;
 * when none does, the default stays: clearly, when every candidate's gain is wholly below 1, else for
 * want of a clear winner.
 *
 * @param recommended the value to use, or null when the default stays or nothing is clear
 * @param gain        the recommended value's gain, or the best candidate's (highest median) otherwise
 * @param contenders  with NO_CLEAR_WINNER: the values whose spreads overlap the best one's
 */
public record TuneDecision(String parameter, String held, Verdict verdict, String recommended, String best, Spread gain,
                           List<String> contenders, Map<String, Spread> candidates) {

    /** The outcome for one parameter. */
    public enum Verdict {
        /** One value beats the default clearly and no other value's spread overlaps it. */
        RECOMMEND,
        /** Every candidate is clearly slower than the default. */
        KEEP_DEFAULT,
        /** The spreads overlap: the default's, or several values' that beat it. */
        NO_CLEAR_WINNER
    }

    /** The decision for parameter (default value held) from each candidate's gain, in the candidates' order. */
    public static TuneDecision decide(String parameter, String held, Map<String, Spread> gains) {
        if (gains.isEmpty()) throw new IllegalArgumentException(parameter + ": no candidates");
        String best = null;
        for (Map.Entry<String, Spread> e : gains.entrySet()) {
            if (best == null || e.getValue().median() > gains.get(best).median()) best = e.getKey();
        }
        Spread b = gains.get(best);
        Map<String, Spread> copy = new LinkedHashMap<>(gains);
        if (b.min() <= 1) {
            boolean allSlower = gains.values().stream().allMatch(s -> s.max() < 1);
            return new TuneDecision(parameter, held, allSlower ? Verdict.KEEP_DEFAULT : Verdict.NO_CLEAR_WINNER, null,
                    best, b, allSlower ? List.of() : List.of(held, best), copy);
        }
        List<String> overlapping = new ArrayList<>();
        for (Map.Entry<String, Spread> e : gains.entrySet()) {
            Spread s = e.getValue();
            if (!e.getKey().equals(best) && s.min() > 1 && s.max() >= b.min()) overlapping.add(e.getKey());
        }
        if (!overlapping.isEmpty()) {
            overlapping.add(0, best);
            return new TuneDecision(parameter, held, Verdict.NO_CLEAR_WINNER, null, best, b, List.copyOf(overlapping),
                    copy);
        }
        return new TuneDecision(parameter, held, Verdict.RECOMMEND, best, best, b, List.of(), copy);
    }

    /** One line, e.g. {@code copy-threshold: use 4096 instead of 1024, +6.1 % calls/s [+2.0 % to +9.3 %]}. */
    public String text() {
        return switch (verdict) {
            case RECOMMEND -> String.format(Locale.ROOT, "%s: use %s instead of %s, %s", parameter, recommended, held,
                    percent(gain));
            case KEEP_DEFAULT -> String.format(Locale.ROOT,
                    "%s: keep %s, every other value is clearly slower (best: %s, %s)",
                    parameter, held, best, percent(gain));
            case NO_CLEAR_WINNER -> contenders.contains(held)
                    ? String.format(Locale.ROOT,
                            "%s: no clear winner, keep %s: the best, %s, gains %s, inside the spread", parameter, held,
                            best, percent(gain))
                    : String.format(Locale.ROOT,
                            "%s: no clear winner among %s: each beats %s, but their spreads overlap (best %s, %s)",
                    parameter, String.join(", ", contenders), held, best, percent(gain));
        };
    }

    /** e.g. {@code +6.1 % calls/s [+2.0 % to +9.3 %]}. */
    public static String percent(Spread g) {
        return String.format(Locale.ROOT, "%+.1f %% calls/s [%+.1f %% to %+.1f %%]", (g.median() - 1) * 100,
                (g.min() - 1) * 100, (g.max() - 1) * 100);
    }
}
