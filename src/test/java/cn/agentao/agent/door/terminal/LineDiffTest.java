package cn.agentao.agent.door.terminal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class LineDiffTest {
    private static List<String> show(String a, String b, int context) {
        return LineDiff.diff(a, b, context).stream().map(l -> l.kind() + l.text()).toList();
    }

    @Test
    void aChangedLineWithContext() {
        assertEquals(List.of("…", " b", "-c", "+C", " d", "…"), show("a\nb\nc\nd\ne", "a\nb\nC\nd\ne", 1));
    }

    @Test
    void insertionsAndDeletionsAlign() {
        assertEquals(List.of(" x", "+new", " y", "-gone", " z"), show("x\ny\ngone\nz", "x\nnew\ny\nz", 5));
    }

    @Test
    void aNewFileIsAllAdditions() {
        assertEquals(List.of("+one", "+two"), show(null, "one\ntwo", 3));
    }
}
