/// Writes a `PushOutcome` as the exact bytes `MessageCodec.encode` makes (sorted keys, no whitespace, slashes unescaped),
/// without `JSONEncoder`: apns-sender writes one per job, up to 1,000 targets each, on the fan-out's hot path. Tests
/// compare both encoders byte for byte.
public enum PushOutcomeEncoder {
    /// The outcome's JSON bytes, identical to `MessageCodec.encode(outcome)`.
    public static func encode(_ outcome: PushOutcome) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + outcome.results.count * 150)
        out.append(UInt8(ascii: "{"))
        if let channel = outcome.channel {
            out.append(contentsOf: #""channel":{"channelId":"#.utf8)
            JSONBytes.string(channel.channelId, &out)
            out.append(contentsOf: #","env":"#.utf8)
            JSONBytes.string(channel.env.rawValue, &out)
            out.append(contentsOf: #","storagePolicy":"#.utf8)
            JSONBytes.integer(channel.storagePolicy, &out)
            out.append(contentsOf: "},".utf8)
        }
        if let timestamp = outcome.contentTimestamp {
            out.append(contentsOf: #""contentTimestamp":"#.utf8)
            JSONBytes.integer(timestamp, &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""createdAt":"#.utf8)
        JSONBytes.integer(outcome.createdAt, &out)
        out.append(contentsOf: #","finishedAt":"#.utf8)
        JSONBytes.integer(outcome.finishedAt, &out)
        out.append(contentsOf: #","jobAttempt":"#.utf8)
        JSONBytes.integer(outcome.jobAttempt, &out)
        out.append(contentsOf: #","jobId":"#.utf8)
        JSONBytes.string(outcome.jobId, &out)
        out.append(contentsOf: #","kind":"#.utf8)
        JSONBytes.string(outcome.kind.rawValue, &out)
        if let knownAt = outcome.knownAt {
            out.append(contentsOf: #","knownAt":"#.utf8)
            JSONBytes.integer(knownAt, &out)
        }
        out.append(contentsOf: #","matchId":"#.utf8)
        JSONBytes.string(outcome.matchId, &out)
        out.append(contentsOf: #","priority":"#.utf8)
        JSONBytes.integer(outcome.priority, &out)
        out.append(contentsOf: #","results":["#.utf8)
        for (index, result) in outcome.results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            target(result, &out)
        }
        out.append(contentsOf: #"],"schema":"#.utf8)
        JSONBytes.integer(outcome.schema, &out)
        out.append(contentsOf: #","stateSeq":"#.utf8)
        JSONBytes.integer(outcome.stateSeq, &out)
        if let trimStep = outcome.trimStep {
            out.append(contentsOf: #","trimStep":"#.utf8)
            JSONBytes.integer(trimStep, &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func target(_ result: PushTargetResult, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let apnsId = result.apnsId {
            out.append(contentsOf: #""apnsId":"#.utf8)
            JSONBytes.string(apnsId, &out)
            out.append(UInt8(ascii: ","))
        }
        if let at = result.at {
            out.append(contentsOf: #""at":"#.utf8)
            JSONBytes.integer(at, &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""deviceId":"#.utf8)
        JSONBytes.string(result.deviceId, &out)
        if let reason = result.reason {
            out.append(contentsOf: #","reason":"#.utf8)
            JSONBytes.string(reason, &out)
        }
        out.append(contentsOf: #","result":"#.utf8)
        JSONBytes.string(result.result.rawValue, &out)
        if let status = result.status {
            out.append(contentsOf: #","status":"#.utf8)
            JSONBytes.integer(status, &out)
        }
        out.append(contentsOf: #","token":"#.utf8)
        JSONBytes.string(result.token, &out)
        out.append(contentsOf: #","tries":"#.utf8)
        JSONBytes.integer(result.tries, &out)
        out.append(contentsOf: #","userId":"#.utf8)
        JSONBytes.string(result.userId, &out)
        out.append(UInt8(ascii: "}"))
    }
}
