package cn.agentao.agent.core.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hand-walked schema map is what Jackson's conversion gave, down to the number types, and the same schema results. */
class ToolSchemasTest {
    private static final String SCHEMA = """
            {"type":"object","description":"d \\u00e9\\ud83d\\ude00","properties":{
              "path":{"type":"string","description":"where","default":null},
              "offset":{"type":"integer","minimum":0,"maximum":9999999999999,"multipleOf":123456789012345678901234567890},
              "ratio":{"type":"number","minimum":0.5,"exclusiveMaximum":1e3},
              "mode":{"type":"string","enum":["a","b"]},"all":{"type":"boolean","default":true},
              "edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"}},"required":["old"],
                       "additionalProperties":false}},
              "any":{"anyOf":[{"type":"string"},{"type":"null"}]}},
             "required":["path"],"additionalProperties":false}""";

    @Test
    void theMapIsJacksonsConversion() throws Exception {
        JsonNode schema = Json.mapper().readTree(SCHEMA);
        Map<String, Object> jackson = Json.mapper().convertValue(schema, new TypeReference<Map<String, Object>>() {});
        Map<String, Object> ours = ToolSchemas.plainObject(schema);
        assertEquals(jackson, ours); // Integer, Long, BigInteger, Double are never equal to one another
        assertEquals(String.valueOf(jackson), String.valueOf(ours));
        assertEquals(JsonSchemaElementJsonUtils.fromMap(jackson), ToolSchemas.objectSchema(schema));
    }
}
