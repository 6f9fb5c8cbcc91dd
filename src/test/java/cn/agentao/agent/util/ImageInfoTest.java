package cn.agentao.agent.util;

import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** The format and pixel size of the four image formats models accept, read from real files' headers. */
class ImageInfoTest {

    private static byte[] written(String format, int width, int height) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(ImageIO.write(new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB), format, out), format);
        return out.toByteArray();
    }

    @Test
    void pngJpegAndGifGiveTheirSize() throws Exception {
        assertEquals(Optional.of(new ImageInfo("image/png", 321, 123)), ImageInfo.of(written("png", 321, 123)));
        assertEquals(Optional.of(new ImageInfo("image/jpeg", 640, 17)), ImageInfo.of(written("jpg", 640, 17)));
        assertEquals(Optional.of(new ImageInfo("image/gif", 9, 300)), ImageInfo.of(written("gif", 9, 300)));
    }

    @Test
    void webpGivesItsSizeFromALosslessHeader() {
        // RIFF....WEBPVP8L, chunk size, signature 0x2f, then 14 bits width-1 and 14 bits height-1
        byte[] webp = new byte[40];
        byte[] head = "RIFF\0\0\0\0WEBPVP8L".getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(head, 0, webp, 0, head.length);
        webp[20] = 0x2f;
        int bits = (1000 - 1) | ((750 - 1) << 14);
        webp[21] = (byte) bits;
        webp[22] = (byte) (bits >> 8);
        webp[23] = (byte) (bits >> 16);
        webp[24] = (byte) (bits >> 24);
        assertEquals(Optional.of(new ImageInfo("image/webp", 1000, 750)), ImageInfo.of(webp));
    }

    @Test
    void otherFilesAreNoImage() {
        assertEquals(Optional.empty(), ImageInfo.of("just some text, long enough".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.empty(), ImageInfo.of(new byte[3]));
    }

    @Test
    void describesWhatAModelWithoutImagesReads() {
        assertEquals("a PNG image of 40×30 pixels, 84 bytes", new ImageInfo("image/png", 40, 30).describe(84));
        assertEquals("a WEBP image, 10 bytes", new ImageInfo("image/webp", 0, 0).describe(10));
    }
}
