package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * AlterClientQuotas (validate-only: a good entry, a refused one) and DescribeClientQuotas (a name
 * no quota has, a bad filter) as shapes; ClientQuotasOracleTest compares the values stored and
 * described. One entry per request: Kafka answers entries in no particular order.
 *
 * <p>Stateless.
 */
final class QuotaCases {
    private QuotaCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.of(ApiKeys.ALTER_CLIENT_QUOTAS, "validate only, accepted", (t, v) -> alter("conf-user",
                "producer_byte_rate", 1024)));
        shapes.add(Shape.of(ApiKeys.ALTER_CLIENT_QUOTAS, "validate only, negative rate", (t, v) -> alter("conf-user",
                "producer_byte_rate", -1)));
        shapes.add(Shape.of(ApiKeys.ALTER_CLIENT_QUOTAS, "validate only, unknown key", (t, v) -> alter("conf-user",
                "no_such_rate", 1)));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CLIENT_QUOTAS, "a user without quotas", (t, v) ->
                new DescribeClientQuotasRequestData().setStrict(true).setComponents(List.of(
                        new DescribeClientQuotasRequestData.ComponentData().setEntityType("user").setMatchType((byte) 0)
                                .setMatch("conf-nobody")))));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CLIENT_QUOTAS, "bad filter", (t, v) ->
                new DescribeClientQuotasRequestData().setComponents(List.of(
                        new DescribeClientQuotasRequestData.ComponentData().setEntityType("user").setMatchType((byte) 0)
                                .setMatch(null)))));
        return shapes;
    }

    private static AlterClientQuotasRequestData alter(String user, String key, double value) {
        return new AlterClientQuotasRequestData().setValidateOnly(true).setEntries(List.of(
                new AlterClientQuotasRequestData.EntryData().setEntity(List.of(
                        new AlterClientQuotasRequestData.EntityData().setEntityType("user").setEntityName(user)))
                        .setOps(List.of(new AlterClientQuotasRequestData.OpData().setKey(key).setValue(value)))));
    }
}
