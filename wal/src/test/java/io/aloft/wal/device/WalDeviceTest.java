package io.aloft.wal.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class WalDeviceTest {

    /**
     * Regression: an aligned buffer's capacity once exceeded its size whenever the raw allocation
     * happened to be aligned (about one in 256 small allocations), so a header write after
     * {@code clear()} wrote 4 KiB of zeros over the next header slot or the ring's first block.
     * The crash test caught it as acknowledged records lost at a lap boundary.
     */
    @Test
    void allocate_capacityIsExactlyTheRequestedSize() {
        for (int i = 0; i < 20_000; i++) {
            ByteBuffer b = WalDevice.allocate(4096);
            assertEquals(4096, b.capacity());
            assertEquals(4096, b.clear().remaining());
            assertEquals(0, b.alignmentOffset(0, WalDevice.ALIGNMENT));
        }
        assertEquals(65536, WalDevice.allocate(65536).capacity());
    }

    @Test
    void allocate_unalignedSize_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> WalDevice.allocate(1000));
    }
}
