package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.UUID;

/**
 * Reads a blob a Computer handed out by handle (A2C-SMCP 0.3 {@code client:get_blob}): chunk after chunk from
 * absolute offsets, at most {@link #MAX_BYTES} in all, and refused unless its bytes match the announced size and
 * sha256. The handle is opaque: it is only passed back to the Computer that minted it.
 */
final class SmcpBlob {
    /** The most the agent takes in one blob (a tool result or a SKILL file); more is refused before any byte is read. */
    static final long MAX_BYTES = 32L * 1024 * 1024;
    /** What the agent asks for per chunk (the Computer may send less). */
    static final int CHUNK_BYTES = 512 * 1024;

    /** One request to the office ({@link SmcpOffice}'s, so errors and timeouts read the same). */
    interface Office {
        JsonNode ask(String event, ObjectNode req, Cancellation cancel) throws SmcpException, CancelledException;
    }

    private SmcpBlob() {}

    /**
     * The blob's bytes. {@code announcedSize} and {@code announcedSha256} are what the handle came with (null when not
     * said); a blob that is larger than {@link #MAX_BYTES}, changes while it is read, or does not match is refused.
     */
    static byte[] fetch(Office office, String agent, String computer, String handle, Long announcedSize, String announcedSha256,
                        Cancellation cancel) throws SmcpException, CancelledException {
        if (announcedSize != null && announcedSize > MAX_BYTES) throw tooLarge(computer, announcedSize);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long offset = 0;
        Long total = null;
        String sha = null;
        while (true) {
            ObjectNode req = Json.object().put("agent", agent).put("req_id", UUID.randomUUID().toString()).put("computer", computer)
                    .put("blob_handle", handle).put("chunk_offset", offset).put("max_chunk_bytes", CHUNK_BYTES);
            JsonNode chunk = office.ask("client:get_blob", req, cancel);
            long size = chunk.path("total_size").canConvertToLong() ? chunk.get("total_size").asLong() : -1;
            String digest = chunk.path("sha256").asText("");
            if (total == null) {
                if (size < 0) throw new SmcpException("Computer " + computer + " sent a blob without its total_size; refused");
                if (size > MAX_BYTES) throw tooLarge(computer, size);
                if (announcedSize != null && size != announcedSize) {
                    throw new SmcpException("the blob from Computer " + computer + " is " + size + " bytes, not the " + announcedSize + " announced; refused");
                }
                total = size;
                sha = digest;
            } else if (size != total || !digest.equals(sha)) {
                throw new SmcpException("the blob on Computer " + computer + " changed while it was read; refused");
            }
            if (!chunk.path("chunk_offset").canConvertToLong() || chunk.get("chunk_offset").asLong() != offset) {
                throw new SmcpException("Computer " + computer + " sent a blob chunk for another offset than " + offset + "; refused");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(chunk.path("blob").asText(""));
            } catch (IllegalArgumentException e) {
                throw new SmcpException("Computer " + computer + " sent a blob chunk that is not base64; refused");
            }
            if (offset + bytes.length > total) {
                throw new SmcpException("Computer " + computer + " sent more blob bytes than the " + total + " announced; refused");
            }
            out.write(bytes, 0, bytes.length);
            offset += bytes.length;
            if (chunk.path("eof").asBoolean(false)) break;
            if (bytes.length == 0) throw new SmcpException("Computer " + computer + " sent an empty blob chunk before the end; refused");
        }
        if (offset != total) {
            throw new SmcpException("the blob from Computer " + computer + " ended after " + offset + " of " + total + " bytes; refused");
        }
        byte[] all = out.toByteArray();
        String actual = sha256(all);
        String expected = (announcedSha256 != null ? announcedSha256 : sha).toLowerCase(Locale.ROOT);
        if (!actual.equals(expected) || (!sha.isEmpty() && !actual.equals(sha.toLowerCase(Locale.ROOT)))) {
            throw new SmcpException("the blob from Computer " + computer + " does not match its sha256 (announced "
                    + abbreviate(expected.isEmpty() ? "none" : expected) + ", received bytes hash to " + abbreviate(actual)
                    + "): it is corrupt or was altered; refused");
        }
        return all;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SmcpException tooLarge(String computer, long size) {
        return new SmcpException("the blob from Computer " + computer + " is " + size + " bytes, more than the "
                + (MAX_BYTES / (1024 * 1024)) + " MiB the agent takes; refused");
    }

    private static String abbreviate(String s) {
        return s.length() <= 16 ? s : s.substring(0, 16) + "…";
    }
}
