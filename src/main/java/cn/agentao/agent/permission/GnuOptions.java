package cn.agentao.agent.permission;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * GNU command-line option syntax, as getopt_long (and git's parse-options) read it, so that every spelling of
 * an option is recognised as that option: {@code -o FILE}, {@code -oFILE}, clusters such as {@code -uoFILE},
 * {@code --output FILE}, {@code --output=FILE} and any unambiguous prefix ({@code --o=FILE}, {@code --compress-prog}).
 *
 * <p>A {@link Spec} lists a command's options that take a value and the long options known; it need not be
 * complete. Unknown short options are read as flags (so the rest of a cluster is still scanned) and an
 * abbreviation that fits several long options names all of them ({@link Option#names()}): a check for a
 * dangerous option errs towards finding it.
 */
final class GnuOptions {
    private GnuOptions() {}

    /**
     * @param shortWithValue short option letters taking a value ({@code "ko"}); the value is the rest of the word
     *                       or the next word
     * @param shortOptional  short option letters whose value, if any, is stuck to them ({@code -O[cmd]})
     * @param longOptions    long option names; a trailing {@code =} means a required value, {@code =?} an optional
     *                       one ({@code "output=", "open-files-in-pager=?", "unique"})
     * @param stopAtOperand  options end at the first operand (the command to run, for env, sudo, xargs, ...)
     */
    record Spec(String shortWithValue, String shortOptional, List<String> longOptions, boolean stopAtOperand) {
        static Spec of(String shortWithValue, String... longOptions) {
            return new Spec(shortWithValue, "", List.of(longOptions), false);
        }

        Spec withOptional(String letters) {
            return new Spec(shortWithValue, letters, longOptions, stopAtOperand);
        }

        Spec stoppingAtOperand() {
            return new Spec(shortWithValue, shortOptional, longOptions, true);
        }
    }

    /**
     * One option as given. {@code names} holds {@code -x} for a short option, or the long names
     * ({@code --output}) an abbreviation may stand for (the word itself when no known option fits, and then
     * {@code unknownLong} is set: the spec cannot tell whether it takes a value).
     */
    record Option(Set<String> names, String value, boolean unknownLong) {
        Option(Set<String> names, String value) {
            this(names, value, false);
        }

        boolean is(String... any) {
            for (String a : any) if (names.contains(a)) return true;
            return false;
        }
    }

    /**
     * The parsed words. {@code firstOperand} is the index (in the words given) of the first operand, or the
     * number of words when there is none; with {@link Spec#stopAtOperand()} everything from there on is
     * the operands.
     */
    record Parsed(List<Option> options, List<String> operands, int firstOperand) {
        boolean has(String... names) {
            for (Option o : options) if (o.is(names)) return true;
            return false;
        }

        /** The values of every occurrence of the named options. */
        List<String> values(String... names) {
            List<String> out = new ArrayList<>();
            for (Option o : options) if (o.is(names) && o.value() != null) out.add(o.value());
            return out;
        }
    }

    static Parsed parse(List<String> args, Spec spec) {
        List<Option> options = new ArrayList<>();
        List<String> operands = new ArrayList<>();
        int firstOperand = args.size();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                if (firstOperand == args.size()) firstOperand = i + 1;
                operands.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
                String value = eq < 0 ? null : a.substring(eq + 1);
                List<String> matches = longMatches(name, spec.longOptions());
                boolean required = !matches.isEmpty() && matches.stream().allMatch(m -> m.endsWith("="));
                if (value == null && required && i + 1 < args.size()) value = args.get(++i);
                Set<String> names = new LinkedHashSet<>();
                for (String m : matches) names.add("--" + bare(m));
                if (names.isEmpty()) names.add("--" + name);
                options.add(new Option(Set.copyOf(names), value, matches.isEmpty()));
            } else if (a.startsWith("-") && a.length() > 1) {
                for (int j = 1; j < a.length(); j++) {
                    char c = a.charAt(j);
                    String name = "-" + c;
                    if (spec.shortWithValue().indexOf(c) >= 0) {
                        String value = j + 1 < a.length() ? a.substring(j + 1) : (i + 1 < args.size() ? args.get(++i) : null);
                        options.add(new Option(Set.of(name), value));
                        break;
                    }
                    if (spec.shortOptional().indexOf(c) >= 0) {
                        options.add(new Option(Set.of(name), j + 1 < a.length() ? a.substring(j + 1) : null));
                        break;
                    }
                    options.add(new Option(Set.of(name), null));
                }
            } else {
                if (firstOperand == args.size()) firstOperand = i;
                if (spec.stopAtOperand()) {
                    operands.addAll(args.subList(i, args.size()));
                    break;
                }
                operands.add(a);
            }
        }
        return new Parsed(List.copyOf(options), List.copyOf(operands), firstOperand);
    }

    /** The long options {@code name} stands for: an exact match, else every option it is a prefix of. */
    private static List<String> longMatches(String name, List<String> longs) {
        List<String> prefixed = new ArrayList<>();
        for (String l : longs) {
            String b = bare(l);
            if (b.equals(name)) return List.of(l);
            if (!name.isEmpty() && b.startsWith(name)) prefixed.add(l);
        }
        return prefixed;
    }

    private static String bare(String longSpec) {
        int eq = longSpec.indexOf('=');
        return eq < 0 ? longSpec : longSpec.substring(0, eq);
    }
}
