package cn.agentao.agent.core.tool;

import java.io.IOException;
import java.nio.file.Path;

/** The file holds binary data, not text. */
public class BinaryFileException extends IOException {
    public BinaryFileException(Path path) {
        super(path + " is a binary file");
    }
}
