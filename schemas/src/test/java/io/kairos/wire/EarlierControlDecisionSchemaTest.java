package io.kairos.wire;

import io.kairos.schema.ControlDecision;
import io.kairos.schema.PipelineEdge;
import io.kairos.schema.PipelineStage;
import io.kairos.schema.SetPipeline;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pipeline decision written before a stage could read the request's input (the schema kept in
 * schemas/earlier: a compacted control topic keeps such decisions, and a fresh start reads them
 * again) decodes with every stage reading the previous stage's output; a current one keeps the
 * stage's input.
 */
class EarlierControlDecisionSchemaTest {

    private static Schema earlier() throws IOException {
        try (InputStream in = EarlierControlDecisionSchemaTest.class.getResourceAsStream("/avro/earlier/ControlDecision-1.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    private static ControlDecision cascade(String slowInput) {
        SetPipeline p = SetPipeline.newBuilder().setPipeline("cascade").setSloP99Ms(80)
                .setStages(List.of(PipelineStage.newBuilder().setName("fast").setModel("m1").build(),
                        PipelineStage.newBuilder().setName("slow").setModel("m2").setBudgetMs(40.0).setInput(slowInput).build()))
                .setEdges(List.of(PipelineEdge.newBuilder().setFrom("fast").setTo("slow").setProbability(0.3).build()))
                .build();
        return ControlDecision.newBuilder().setVersion(3).setIssuedAtMicros(7).setIssuedBy("user").setAction(p).build();
    }

    @Test
    void aPipelineDecisionOfTheEarlierSchemaReadsEveryStageFromThePreviousOutput() throws IOException {
        Schema old = earlier();
        assertThat(old.toString()).doesNotContain("\"input\"");
        // The current record written as the earlier schema writes it: the new field, the last of a stage, left out.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<ControlDecision>(old).write(cascade(null), e);
        e.flush();

        ControlDecision decoded = AvroCodec.of(ControlDecision.class).decode(out.toByteArray());
        assertThat(decoded).isEqualTo(cascade(null));
        assertThat(((SetPipeline) decoded.getAction()).getStages()).extracting(PipelineStage::getInput).containsExactly(null, null);
    }

    @Test
    void aCurrentPipelineDecisionKeepsItsStagesInput() {
        AvroCodec<ControlDecision> codec = AvroCodec.of(ControlDecision.class);
        ControlDecision d = cascade("request");
        assertThat(codec.decode(codec.encode(d))).isEqualTo(d);
        assertThat(codec.encode(d)).as("one byte more than the earlier schema's: the null of the fast stage's input, and 'request' on the slow one")
                .hasSizeGreaterThan(codec.encode(cascade(null)).length);
    }
}
