package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.record.EngineRecords;
import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.model.ModelPrice;
import cn.agentao.agent.model.TokenCount;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * A session's tokens and cost so far: the sum of its {@link EngineRecord.Usage} records (one per model call, with
 * that call's cost at the prices of the time). {@code currency} is null while no call had a price; calls priced
 * in another currency than the first priced one add tokens but no cost.
 */
public record UsageTotals(long calls, long input, long output, long cachedInput, double cost, String currency) {
    public static final UsageTotals NONE = new UsageTotals(0, 0, 0, 0, 0, null);

    /** The record of one call: its tokens and, when priced, its cost. */
    public static EngineRecord.Usage record(String model, TokenCount usage, ModelPrice price) {
        return new EngineRecord.Usage(model, usage.input(), usage.output(), usage.cachedInput(),
                price == null ? null : price.cost(usage), price == null ? null : price.currency());
    }

    /** Adds one call's record. */
    public UsageTotals plus(EngineRecord.Usage r) {
        String c = r.currency();
        boolean priced = c != null && r.cost() != null && (currency == null || currency.equals(c));
        return new UsageTotals(calls + 1, input + r.input(), output + r.output(), cachedInput + r.cachedInput(),
                priced ? cost + r.cost() : cost, priced ? c : currency);
    }

    /** The totals of a stored session's records (whole lines). */
    public static UsageTotals of(List<ObjectNode> records) {
        UsageTotals t = NONE;
        for (ObjectNode r : records) {
            if (RecordTypes.USAGE.equals(r.path("type").asText()) && EngineRecords.read(r) instanceof EngineRecord.Usage u) t = t.plus(u);
        }
        return t;
    }

    /** For people: {@code 12,345 tokens in (1,000 cached), 678 out; cost 0.0421 USD}. */
    public String describe() {
        String tokens = String.format("%,d tokens in%s, %,d out in %,d model call%s", input,
                cachedInput > 0 ? String.format(" (%,d cached)", cachedInput) : "", output, calls, calls == 1 ? "" : "s");
        return tokens + (currency == null ? "; no price configured" : String.format("; cost %.4f %s", cost, currency));
    }
}
