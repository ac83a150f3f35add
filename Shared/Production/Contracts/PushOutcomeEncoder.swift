/// Writes a `PushOutcome` as the exact bytes `MessageCodec.encode` makes (sorted keys, no whitespace, slashes unescaped),
/// without `JSONEncoder`: apns-sender writes one per job, up to 1,000 targets each, on the fan-out's hot path. Tests
/// compare both encoders byte for byte.
///
/// `encode` writes a whole `PushOutcome`; `Writer` writes the same bytes row by row, so apns-sender can write its
/// ledger's columns straight out (whole tokens masked while written) without building a `PushTargetResult` and a
/// masked token String per target.
public enum PushOutcomeEncoder {
    /// The outcome's JSON bytes, identical to `MessageCodec.encode(outcome)`.
    public static func encode(_ outcome: PushOutcome) -> [UInt8] {
        var writer = Writer(outcome, rows: outcome.results.count)
        for result in outcome.results { writer.row(result) }
        return writer.finish()
    }

    /// An outcome written row by row: the fields before `results` at `init`, one `row` per target, the rest at `finish`.
    public struct Writer {
        private var out: [UInt8] = []
        private var rows = 0
        private let tail: PushOutcome

        /// Starts the outcome of `header` (its `results` are ignored: write them with `row`), sized for `rows` results.
        public init(_ header: PushOutcome, rows expected: Int) {
            tail = header
            // A row is ≈190 bytes with a 36-character apns-id and a ~30-character user id.
            out.reserveCapacity(320 + header.jobId.utf8.count + header.matchId.utf8.count + expected * 224)
            literal("{")
            if let channel = header.channel {
                literal(#""channel":{"channelId":"#)
                JSONBytes.string(channel.channelId, &out)
                literal(#","env":"#)
                JSONBytes.string(channel.env.rawValue, &out)
                literal(#","storagePolicy":"#)
                JSONBytes.integer(channel.storagePolicy, &out)
                literal("},")
            }
            if let timestamp = header.contentTimestamp {
                literal(#""contentTimestamp":"#)
                JSONBytes.integer(timestamp, &out)
                literal(",")
            }
            literal(#""createdAt":"#)
            JSONBytes.integer(header.createdAt, &out)
            literal(#","finishedAt":"#)
            JSONBytes.integer(header.finishedAt, &out)
            literal(#","jobAttempt":"#)
            JSONBytes.integer(header.jobAttempt, &out)
            literal(#","jobId":"#)
            JSONBytes.string(header.jobId, &out)
            literal(#","kind":"#)
            JSONBytes.string(header.kind.rawValue, &out)
            if let knownAt = header.knownAt {
                literal(#","knownAt":"#)
                JSONBytes.integer(knownAt, &out)
            }
            literal(#","matchId":"#)
            JSONBytes.string(header.matchId, &out)
            literal(#","priority":"#)
            JSONBytes.integer(header.priority, &out)
            literal(#","results":["#)
        }

        /// One result as it is.
        public mutating func row(_ result: PushTargetResult) {
            row(userId: result.userId, deviceId: result.deviceId, token: result.token, masking: false, result: result.result,
                status: result.status, reason: result.reason, apnsId: result.apnsId, tries: result.tries, at: result.at)
        }

        /// One result of a target whose whole token is `wholeToken`: written as `TokenMask.mask(wholeToken)`.
        public mutating func row(userId: String, deviceId: String, wholeToken: String, result: PushResult, status: Int?, reason: String?,
                                 apnsId: String?, tries: Int, at: Int64?) {
            row(userId: userId, deviceId: deviceId, token: wholeToken, masking: true, result: result, status: status, reason: reason,
                apnsId: apnsId, tries: tries, at: at)
        }

        /// The outcome's bytes.
        public consuming func finish() -> [UInt8] {
            literal(#"],"schema":"#)
            JSONBytes.integer(tail.schema, &out)
            if let sendId = tail.sendId {
                literal(#","sendId":"#)
                JSONBytes.integer(sendId, &out)
            }
            literal(#","stateSeq":"#)
            JSONBytes.integer(tail.stateSeq, &out)
            if let trimStep = tail.trimStep {
                literal(#","trimStep":"#)
                JSONBytes.integer(trimStep, &out)
            }
            literal("}")
            return out
        }

        private mutating func row(userId: String, deviceId: String, token: String, masking: Bool, result: PushResult, status: Int?,
                                  reason: String?, apnsId: String?, tries: Int, at: Int64?) {
            literal(rows == 0 ? "{" : ",{")
            rows += 1
            if let apnsId {
                literal(#""apnsId":"#)
                JSONBytes.string(apnsId, &out)
                literal(",")
            }
            if let at {
                literal(#""at":"#)
                JSONBytes.integer(at, &out)
                literal(",")
            }
            literal(#""deviceId":"#)
            JSONBytes.string(deviceId, &out)
            if let reason {
                literal(#","reason":"#)
                JSONBytes.string(reason, &out)
            }
            literal(#","result":"#)
            JSONBytes.string(result.rawValue, &out)
            if let status {
                literal(#","status":"#)
                JSONBytes.integer(status, &out)
            }
            literal(#","token":"#)
            if masking { maskedToken(token) } else { JSONBytes.string(token, &out) }
            literal(#","tries":"#)
            JSONBytes.integer(tries, &out)
            literal(#","userId":"#)
            JSONBytes.string(userId, &out)
            literal("}")
        }

        /// `TokenMask.mask(token)` as a JSON string: "…" and the last `TokenMask.kept` bytes copied when they are plain
        /// ASCII (hex tokens always are); anything else through the String.
        private mutating func maskedToken(_ token: String) {
            var token = token
            let written = token.withUTF8 { bytes -> Bool in
                guard bytes.count > TokenMask.kept else { return false }
                let suffix = UnsafeBufferPointer(rebasing: bytes[(bytes.count - TokenMask.kept)...])
                guard suffix.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else { return false }
                literal("\"…")
                out.append(contentsOf: suffix)
                literal("\"")
                return true
            }
            if !written { JSONBytes.string(TokenMask.mask(token), &out) }
        }

        @inline(__always) private mutating func literal(_ text: StaticString) { JSONBytes.literal(text, &out) }
    }
}
