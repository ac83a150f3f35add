/// Writes a `PushProgress` as the exact bytes `MessageCodec.encode` makes (sorted keys, no whitespace, nil fields
/// left out), without `JSONEncoder`: apns-sender writes a mark for every chunk of answers on the fan-out's hot path
/// (JSONEncoder was most of a mark's cost). Tests compare both encoders byte for byte.
public enum PushProgressEncoder {
    /// The mark's JSON bytes, identical to `MessageCodec.encode(mark)`.
    public static func encode(_ mark: PushProgress) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(200 + mark.jobsTopic.utf8.count + (mark.jobId?.utf8.count ?? 0) + mark.accepted.count * 12 + mark.refused.count * 80)
        JSONBytes.literal(#"{"accepted":["#, &out)
        for (number, pair) in mark.accepted.enumerated() {
            if number > 0 { JSONBytes.literal(",", &out) }
            JSONBytes.literal("[", &out)
            for (position, bound) in pair.enumerated() {
                if position > 0 { JSONBytes.literal(",", &out) }
                JSONBytes.integer(bound, &out)
            }
            JSONBytes.literal("]", &out)
        }
        JSONBytes.literal(#"],"at":"#, &out)
        JSONBytes.integer(mark.at, &out)
        if let channelId = mark.channelId {
            JSONBytes.literal(#","channelId":"#, &out)
            JSONBytes.string(channelId, &out)
        }
        if let jobId = mark.jobId {
            JSONBytes.literal(#","jobId":"#, &out)
            JSONBytes.string(jobId, &out)
        }
        JSONBytes.literal(#","jobsTopic":"#, &out)
        JSONBytes.string(mark.jobsTopic, &out)
        JSONBytes.literal(#","kind":"#, &out)
        JSONBytes.string(mark.kind.rawValue, &out)
        JSONBytes.literal(#","messageTimestamp":"#, &out)
        JSONBytes.integer(mark.messageTimestamp, &out)
        JSONBytes.literal(#","offset":"#, &out)
        JSONBytes.integer(mark.offset, &out)
        if let orderKey = mark.orderKey {
            JSONBytes.literal(#","orderKey":"#, &out)
            JSONBytes.string(orderKey, &out)
        }
        JSONBytes.literal(#","partition":"#, &out)
        JSONBytes.integer(mark.partition, &out)
        JSONBytes.literal(#","refused":["#, &out)
        for (number, refusal) in mark.refused.enumerated() {
            JSONBytes.literal(number > 0 ? ",{" : "{", &out)
            if let timestamp = refusal.apnsTimestamp {
                JSONBytes.literal(#""apnsTimestamp":"#, &out)
                JSONBytes.integer(timestamp, &out)
                JSONBytes.literal(",", &out)
            }
            JSONBytes.literal(#""index":"#, &out)
            JSONBytes.integer(refusal.index, &out)
            JSONBytes.literal(#","reason":"#, &out)
            JSONBytes.string(refusal.reason, &out)
            JSONBytes.literal(#","status":"#, &out)
            JSONBytes.integer(refusal.status, &out)
            JSONBytes.literal("}", &out)
        }
        JSONBytes.literal(#"],"schema":"#, &out)
        JSONBytes.integer(mark.schema, &out)
        if let stateSeq = mark.stateSeq {
            JSONBytes.literal(#","stateSeq":"#, &out)
            JSONBytes.integer(stateSeq, &out)
        }
        JSONBytes.literal("}", &out)
        return out
    }
}
