package cn.agentao.agent.util;

import java.util.Optional;

/**
 * What an image file's first bytes say: its format (PNG, JPEG, GIF or WebP, the ones model providers accept) and its
 * size in pixels, read from the header without decoding the picture (the JDK cannot decode WebP).
 *
 * @param mimeType {@code image/png}, {@code image/jpeg}, {@code image/gif} or {@code image/webp}
 * @param width    in pixels, or 0 when the header does not say (a cut or unusual file)
 * @param height   in pixels, or 0 when the header does not say
 */
public record ImageInfo(String mimeType, int width, int height) {

    /** The largest image the agent sends a model: Anthropic refuses more (OpenAI accepts more). */
    public static final long MAX_BYTES = 5L * 1024 * 1024;
    /** Anthropic refuses an image over 8000 pixels a side. */
    public static final int MAX_SIDE = 8000;

    /** Whether an image of this size in pixels and {@code bytes} long is within {@link #MAX_BYTES} and {@link #MAX_SIDE}. */
    public boolean fits(long bytes) {
        return bytes <= MAX_BYTES && width <= MAX_SIDE && height <= MAX_SIDE;
    }

    /** "at most 5 MB and 8000 pixels a side" */
    public static String limits() {
        return "at most " + (MAX_BYTES >> 20) + " MB and " + MAX_SIDE + " pixels a side";
    }

    /** The format and size of {@code data} (the whole file or its start), or empty when it is none of the four. */
    public static Optional<ImageInfo> of(byte[] data) {
        if (data == null || data.length < 12) return Optional.empty();
        if (u8(data, 0) == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G') {
            return Optional.of(new ImageInfo("image/png", be32(data, 16), be32(data, 20)));
        }
        if (data[0] == 'G' && data[1] == 'I' && data[2] == 'F' && data[3] == '8') {
            return Optional.of(new ImageInfo("image/gif", le16(data, 6), le16(data, 8)));
        }
        if (u8(data, 0) == 0xFF && u8(data, 1) == 0xD8 && u8(data, 2) == 0xFF) {
            return Optional.of(jpeg(data));
        }
        if (data[0] == 'R' && data[1] == 'I' && data[2] == 'F' && data[3] == 'F'
                && data[8] == 'W' && data[9] == 'E' && data[10] == 'B' && data[11] == 'P') {
            return Optional.of(webp(data));
        }
        return Optional.empty();
    }

    /** The format and size of the image in {@code file}, from its first 64 KiB (a JPEG's size may follow its EXIF block). */
    public static Optional<ImageInfo> ofFile(java.nio.file.Path file) throws java.io.IOException {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            return of(in.readNBytes(64 * 1024));
        }
    }

    /** The mime type for a file name's extension (png, jpg, jpeg, gif, webp), or null. */
    public static String mimeTypeOfName(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        if (n.endsWith(".png")) return "image/png";
        if (n.endsWith(".jpg") || n.endsWith(".jpeg")) return "image/jpeg";
        if (n.endsWith(".gif")) return "image/gif";
        if (n.endsWith(".webp")) return "image/webp";
        return null;
    }

    /** "an image of 640×480 pixels, 12345 bytes" (the size left out when the header did not give it). */
    public String describe(long bytes) {
        String kind = mimeType.substring("image/".length()).toUpperCase(java.util.Locale.ROOT);
        return "a " + kind + " image" + (width > 0 && height > 0 ? " of " + width + "×" + height + " pixels" : "")
                + ", " + bytes + " bytes";
    }

    /** The frame header (SOF0…SOF15 but DHT, JPG and DAC) gives the size; markers are walked from the start. */
    private static ImageInfo jpeg(byte[] d) {
        int i = 2;
        while (i + 9 < d.length) {
            if (u8(d, i) != 0xFF) { i++; continue; }
            int marker = u8(d, i + 1);
            if (marker == 0xFF) { i++; continue; }
            if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { i += 2; continue; }
            int length = be16(d, i + 2);
            if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
                return new ImageInfo("image/jpeg", be16(d, i + 7), be16(d, i + 5));
            }
            if (length < 2) break;
            i += 2 + length;
        }
        return new ImageInfo("image/jpeg", 0, 0);
    }

    private static ImageInfo webp(byte[] d) {
        if (d.length >= 30 && d[12] == 'V' && d[13] == 'P' && d[14] == '8') {
            switch (d[15]) {
                case ' ' -> { return new ImageInfo("image/webp", le16(d, 26) & 0x3FFF, le16(d, 28) & 0x3FFF); }
                case 'L' -> {
                    long bits = (u8(d, 21) | (u8(d, 22) << 8) | (u8(d, 23) << 16) | ((long) u8(d, 24) << 24));
                    return new ImageInfo("image/webp", (int) (bits & 0x3FFF) + 1, (int) ((bits >> 14) & 0x3FFF) + 1);
                }
                case 'X' -> { return new ImageInfo("image/webp", le24(d, 24) + 1, le24(d, 27) + 1); }
                default -> { }
            }
        }
        return new ImageInfo("image/webp", 0, 0);
    }

    private static int u8(byte[] d, int i) { return i < d.length ? d[i] & 0xFF : 0; }

    private static int be16(byte[] d, int i) { return (u8(d, i) << 8) | u8(d, i + 1); }

    private static int le16(byte[] d, int i) { return u8(d, i) | (u8(d, i + 1) << 8); }

    private static int le24(byte[] d, int i) { return u8(d, i) | (u8(d, i + 1) << 8) | (u8(d, i + 2) << 16); }

    private static int be32(byte[] d, int i) {
        long v = ((long) u8(d, i) << 24) | (u8(d, i + 1) << 16) | (u8(d, i + 2) << 8) | u8(d, i + 3);
        return v > Integer.MAX_VALUE ? 0 : (int) v;
    }
}
