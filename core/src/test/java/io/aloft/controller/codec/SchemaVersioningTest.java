package io.aloft.controller.codec;

import static io.aloft.controller.codec.Bytes.concat;
import static io.aloft.controller.codec.Bytes.frame;
import static io.aloft.controller.codec.Bytes.string;
import static io.aloft.controller.codec.Bytes.varint;
import static io.aloft.controller.codec.Bytes.varints;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.FeatureRange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Record versions and feature levels, on test-only records (production has one version of
 * everything so far): which version a level writes, defaults for fields a version lacks, fields
 * added and removed, versions and ids this build does not know, enum codes, the level a decoder
 * reports, and independence from Java's declaration order.
 */
class SchemaVersioningTest {
    private static final int WIDGET_ID = 1000;

    /** v0 (level 1): id, label. v1 (level 2): adds size. v2 (level 3): adds tags, drops label. */
    public record Widget(int id, String label, long size, List<String> tags) {
        public Widget {
            tags = List.copyOf(tags);
        }
    }

    /** A widget holding another: the nested record is written at its own version. */
    public record Box(Widget content) {
    }

    public enum Color { RED, GREEN, BLUE }

    static final RecordSchema<Widget> WIDGET = RecordSchema.builder(WIDGET_ID, "Widget", Widget.class)
            .version(0, 1)
            .version(1, 2)
            .version(2, 3)
            .field("id", FieldType.INT32, Widget::id)
            .field("label", FieldType.STRING, Widget::label).until(1).orElse("")
            .field("size", FieldType.INT64, Widget::size).since(1).orElse(-1L)
            .field("tags", FieldType.listOf(FieldType.STRING), Widget::tags).since(2).orElse(List.of())
            .build(v -> new Widget(v.get("id"), v.get("label"), v.get("size"), v.get("tags")));

    static final RecordSchema<Box> BOX = RecordSchema.builder(1001, "Box", Box.class)
            .version(0, 1)
            .field("content", FieldType.record(WIDGET), Box::content)
            .build(v -> new Box(v.get("content")));

    /** BLUE came later, at level 2; codes are not ordinals. */
    static final EnumSchema<Color> COLOR = EnumSchema.builder(1002, "Color", Color.class)
            .constant(7, "RED", Color.RED)
            .constant(3, "GREEN", Color.GREEN)
            .constant(9, "BLUE", Color.BLUE, 2)
            .build();

    static final ControllerCodec CODEC = new ControllerCodec(SchemaRegistry.builder(new FeatureRange(1, 3))
            .add(WIDGET).add(BOX).add(COLOR).build());

    private static Widget widget(String label, long size, List<String> tags) {
        return new Widget(5, label, size, tags);
    }

    @Test
    void encodingForALevelWritesTheNewestVersionItAllows() {
        assertArrayEquals(frame(1, varints(WIDGET_ID, 0, 5), string("a")), CODEC.encode(widget("a", -1, List.of()),
                1, 1));
        assertArrayEquals(frame(2, varints(WIDGET_ID, 1, 5), string("a"), varint(9)),
                CODEC.encode(widget("a", 9, List.of()), 2, 2));
        assertArrayEquals(frame(3, varints(WIDGET_ID, 2, 5, 9, 1), string("t")),
                CODEC.encode(widget("", 9, List.of("t")), 3, 3));
        // A value that only needs old versions says so in its header, whatever level it was written for.
        assertEquals(1, CODEC.header(CODEC.encode(Color.RED, 3, 3)).level());
    }

    @Test
    void decodingFillsDefaultsForFieldsTheVersionLacks() {
        assertEquals(widget("a", -1, List.of()), CODEC.decode(frame(1, varints(WIDGET_ID, 0, 5), string("a")),
                Widget.class));
        assertEquals(widget("", 9, List.of("t")), CODEC.decode(frame(3, varints(WIDGET_ID, 2, 5, 9, 1), string("t")),
                Widget.class));
    }

    @Test
    void aFieldTheChosenVersionLacksCannotBeWritten() {
        IllegalArgumentException added = assertThrows(IllegalArgumentException.class,
                () -> CODEC.encode(widget("a", 9, List.of()), 1, 1));
        assertTrue(added.getMessage().contains("Widget.size"), added.getMessage());
        IllegalArgumentException removed = assertThrows(IllegalArgumentException.class,
                () -> CODEC.encode(widget("a", 9, List.of()), 3, 3));
        assertTrue(removed.getMessage().contains("Widget.label"), removed.getMessage());
    }

    @Test
    void aNewerVersionOrUnknownTypeIsMalformed_namingTypeAndVersion() {
        MalformedDataException newer = assertThrows(MalformedDataException.class,
                () -> CODEC.decode(frame(3, varints(WIDGET_ID, 3, 5))));
        assertTrue(newer.getMessage().contains("Widget") && newer.getMessage().contains("version 3"),
                newer.getMessage());
        MalformedDataException unknown = assertThrows(MalformedDataException.class,
                () -> CODEC.decode(frame(1, varints(4242, 0))));
        assertTrue(unknown.getMessage().contains("4242"), unknown.getMessage());
    }

    @Test
    void theDecoderReportsTheHighestLevelMet_evenInsideNestedRecords() {
        Box box = new Box(widget("", 9, List.of()));
        byte[] atThree = CODEC.encode(box, 3, 3);
        assertEquals(3, CODEC.header(atThree).level(), "the header holds the nested widget's level");
        assertEquals(3, CODEC.decode(atThree).levelMet());
        assertEquals(1, CODEC.decode(CODEC.encode(new Box(widget("a", -1, List.of())), 1, 1)).levelMet(),
                "written for level 1, the nested widget is v0");
        // A header that claims less than the value needs is malformed.
        byte[] understated = atThree.clone();
        understated[3] = 2;
        assertThrows(MalformedDataException.class, () -> CODEC.decode(understated));
    }

    @Test
    void enumsAreWrittenByCode_andConstantsHaveLevels() {
        assertArrayEquals(frame(1, varints(1002, 7)), CODEC.encode(Color.RED, 1, 1));
        assertArrayEquals(frame(1, varints(1002, 3)), CODEC.encode(Color.GREEN, 1, 1));
        assertEquals(Color.GREEN, CODEC.decode(frame(1, varints(1002, 3))).value());
        assertThrows(MalformedDataException.class, () -> CODEC.decode(frame(1, varints(1002, 1))));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(Color.BLUE, 1, 1));
        assertEquals(2, CODEC.header(CODEC.encode(Color.BLUE, 2, 2)).level());
    }

    /** The same schema over a record whose Java components are in another order and named differently. */
    public record ReorderedWidget(List<String> labels, long bytes, String name, int key) {
    }

    @Test
    void javaDeclarationOrderAndNamesDoNotChangeAByte() {
        RecordSchema<ReorderedWidget> reordered = RecordSchema.builder(WIDGET_ID, "Widget", ReorderedWidget.class)
                .version(0, 1)
                .version(1, 2)
                .version(2, 3)
                .field("id", FieldType.INT32, ReorderedWidget::key)
                .field("label", FieldType.STRING, ReorderedWidget::name).until(1).orElse("")
                .field("size", FieldType.INT64, ReorderedWidget::bytes).since(1).orElse(-1L)
                .field("tags", FieldType.listOf(FieldType.STRING), ReorderedWidget::labels).since(2)
                .orElse(List.of())
                .build(v -> new ReorderedWidget(v.get("tags"), v.get("size"), v.get("label"), v.get("id")));
        ControllerCodec other = new ControllerCodec(SchemaRegistry.builder(new FeatureRange(1, 3)).add(reordered)
                .build());
        for (int level = 1; level <= 2; level++) {
            assertArrayEquals(CODEC.encode(widget("a", level == 1 ? -1 : 4, List.of()), level, level),
                    other.encode(new ReorderedWidget(List.of(), level == 1 ? -1 : 4, "a", 5), level, level));
        }
    }

    @Test
    void canonicalTextShowsTheFieldsOfTheVersionWrittenForTheLevel() {
        assertEquals("Widget v0 {id: 5, label: \"a\"}\n", CODEC.render(widget("a", -1, List.of()), 1));
        assertEquals("Widget v2 {id: 5, size: 9, tags: [\"x\\u00e9\"]}\n", CODEC.render(widget("", 9, List.of("xé")),
                3));
        assertEquals("Color.GREEN\n", CODEC.render(Color.GREEN, 1));
    }

    @Test
    void schemaDeclarationsAreChecked() {
        // Levels must rise with versions; a field missing from some versions needs a default.
        assertThrows(IllegalArgumentException.class, () -> RecordSchema.builder(2000, "X", Widget.class)
                .version(0, 2).version(1, 2));
        assertThrows(IllegalArgumentException.class, () -> RecordSchema.builder(2000, "X", Widget.class)
                .version(1, 1));
        assertThrows(IllegalStateException.class, () -> RecordSchema.builder(2000, "X", Widget.class)
                .version(0, 1).version(1, 2).field("size", FieldType.INT64, Widget::size).since(1)
                .build(v -> null));
        // An enum constant without a code.
        assertThrows(IllegalStateException.class, () -> EnumSchema.builder(2001, "C", Color.class)
                .constant(0, "RED", Color.RED).build());
        // Registries: versions above the build's levels, ids below 16 or taken twice.
        assertThrows(IllegalStateException.class, () -> SchemaRegistry.builder(new FeatureRange(1, 2)).add(WIDGET)
                .build());
        assertThrows(IllegalArgumentException.class, () -> SchemaRegistry.builder(new FeatureRange(1, 3))
                .add(RecordSchema.builder(15, "Low", Box.class).version(0, 1).build(v -> null)));
        assertThrows(IllegalArgumentException.class, () -> SchemaRegistry.builder(new FeatureRange(1, 3))
                .add(WIDGET).add(RecordSchema.builder(WIDGET_ID, "Other", Box.class).version(0, 1).build(v -> null)));
    }

    @Test
    void aTruncatedOrPaddedVersionedRecordIsMalformed() {
        byte[] v1 = CODEC.encode(widget("a", 9, List.of()), 2, 2);
        for (int len = 0; len < v1.length; len++) {
            byte[] prefix = java.util.Arrays.copyOf(v1, len);
            assertThrows(MalformedDataException.class, () -> CODEC.decode(prefix));
        }
        assertThrows(MalformedDataException.class, () -> CODEC.decode(concat(v1, varint(0))));
    }
}
