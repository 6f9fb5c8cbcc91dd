package cn.agentao.agent.permission;

import cn.agentao.agent.permission.GnuOptions.Parsed;
import cn.agentao.agent.permission.GnuOptions.Spec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GnuOptionsTest {
    private static final Spec SORT = Spec.of("kotST", "output=", "compress-program=", "key=", "unique", "debug");

    private static Parsed sort(String... args) {
        return GnuOptions.parse(List.of(args), SORT);
    }

    @Test
    void everySpellingOfAnOptionWithAValue() {
        for (List<String> args : List.of(List.of("-o", "F"), List.of("-oF"), List.of("-uoF"), List.of("--output", "F"),
                List.of("--output=F"), List.of("--o=F"), List.of("--outp", "F"))) {
            Parsed p = GnuOptions.parse(args, SORT);
            assertTrue(p.has("-o", "--output"), args.toString());
            assertEquals(List.of("F"), p.values("-o", "--output"), args.toString());
            assertEquals(List.of(), p.operands(), args.toString());
        }
    }

    @Test
    void aStuckValueHidesTheLettersAfterIt() {
        assertFalse(sort("-to", "in").has("-o")); // -t takes "o" as its separator
        assertEquals(List.of("in"), sort("-to", "in").operands());
        assertTrue(sort("-uk1", "-o", "x").has("-o"));
    }

    @Test
    void anAmbiguousAbbreviationNamesEveryCandidate() {
        Parsed p = GnuOptions.parse(List.of("--co=sh"), Spec.of("", "compress-program=", "check=?", "contains"));
        assertTrue(p.has("--compress-program"));
        assertTrue(p.has("--contains"));
        assertFalse(p.has("--check"));
        // an exact name wins over longer options it is a prefix of
        assertFalse(GnuOptions.parse(List.of("--pre"), Spec.of("", "pre=", "pre-glob=")).has("--pre-glob"));
    }

    @Test
    void doubleDashEndsOptionsAndOperandsMayComeFirst() {
        Parsed p = sort("in.txt", "-o", "out", "--", "-o");
        assertEquals(List.of("in.txt", "-o"), p.operands());
        assertEquals(List.of("out"), p.values("-o"));
    }

    @Test
    void wrappersStopAtTheirCommand() {
        Parsed p = GnuOptions.parse(List.of("--adj", "5", "rm", "-rf", "/"), Spec.of("n", "adjustment=").stoppingAtOperand());
        assertEquals(2, p.firstOperand());
        assertEquals(List.of("rm", "-rf", "/"), p.operands());
    }

    @Test
    void optionalValuesAreOnlyStuck() {
        Spec gitGrep = Spec.of("e", "open-files-in-pager=?").withOptional("O");
        assertEquals(List.of("sh"), GnuOptions.parse(List.of("-iOsh", "x"), gitGrep).values("-O"));
        assertEquals(List.of("x"), GnuOptions.parse(List.of("-O", "x"), gitGrep).operands());
        assertFalse(GnuOptions.parse(List.of("-e", "-O"), gitGrep).has("-O"));
    }
}
