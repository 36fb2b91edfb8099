package org.sysframe.bench.explore;

import org.sysframe.bench.peer.Pairing;

import java.util.ArrayList;
import java.util.List;

/**
 * A sweep's {@code PARAM=V1,V2,...} argument: the parameter and its values in canonical form, at least
 * two and each once, every one checked against the parameter's range before anything runs.
 */
public record SweepSpec(SweepParameter parameter, List<String> values) {

    /** Parses {@code copy-threshold=256,512}; a bad one fails with one line naming it and what is accepted. */
    public static SweepSpec parse(String arg) {
        int eq = arg.indexOf('=');
        if (eq < 0) {
            throw new IllegalArgumentException("'" + arg + "': expected PARAM=V1,V2,...; sweepable: "
                    + SweepParameter.all());
        }
        SweepParameter p = SweepParameter.named(arg.substring(0, eq).trim());
        String list = arg.substring(eq + 1).trim();
        if (list.isEmpty()) throw new IllegalArgumentException(p.id + "=: empty list; accepted " + p.accepted);
        List<String> values = new ArrayList<>();
        for (String v : list.split(",", -1)) {
            if (v.isBlank()) throw new IllegalArgumentException(p.id + "=" + list
                    + ": an empty value in the list; accepted " + p.accepted);
            String c = p.check(v.trim());
            if (values.contains(c)) throw new IllegalArgumentException(p.id + "=" + list + ": " + c + " listed twice");
            values.add(c);
        }
        if (values.size() < 2) throw new IllegalArgumentException(p.id + "=" + list
                + ": a sweep needs at least two values");
        return new SweepSpec(p, List.copyOf(values));
    }

    /** One pairing per value: held with the parameter set, named {@code PARAM=VALUE}, in the values' order. */
    public List<Pairing> pairings(Pairing held) {
        List<Pairing> out = new ArrayList<>();
        for (String v : values) out.add(parameter.apply(held, v));
        return out;
    }

    /** The row ratios are taken against: the held pairing's own value when it is swept, else the first. */
    public String reference(Pairing held) {
        String own = parameter.held(held);
        return parameter.given(values.contains(own) ? own : values.get(0));
    }
}
