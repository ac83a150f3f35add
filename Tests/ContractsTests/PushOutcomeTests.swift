import Contracts
import Foundation
import Testing

/// `push.outcomes`: the hand-written encoder writes what `MessageCodec` writes; the payload's timestamp is read without
/// decoding; tokens are only ever shown masked; ids follow one rule.
@Suite struct PushOutcomeTests {
    static func job(channel: PushChannel? = nil, trimStep: Int? = nil, knownAt: Int64? = 1_700_000_000_123) -> PushJob {
        PushJob(jobId: "ev\"1:0:0", kind: .liveActivityUpdate, matchId: "m/1", stateSeq: 42, priority: 10, expiration: 1_700_000_900,
                relevanceScore: 10, payload: #"{"aps":{"content-state":{"title":"A \"q\""},"timestamp":1700000000}}"#,
                targets: channel == nil ? [PushTarget(token: String(repeating: "ab", count: 40), env: .sandbox, userId: "u\\1", deviceId: "d\n1")] : [],
                createdAt: 1_700_000_000_200, attempt: 2, channel: channel, knownAt: knownAt, trimStep: trimStep)
    }

    @Test("the hand-written encoder is byte-identical to MessageCodec, with and without every optional field", arguments: [0, 1, 2, 3])
    func encoderMatchesCodec(variant: Int) throws {
        let channel = variant == 1 ? PushChannel(channelId: "Y2hhbm5lbA==", env: .production, storagePolicy: 0) : nil
        let job = Self.job(channel: channel, trimStep: variant == 2 ? 1 : nil, knownAt: variant == 3 ? nil : 1_700_000_000_123)
        let results = variant == 3 ? [] : [
            PushTargetResult(userId: "u\\1", deviceId: "d\n1", token: TokenMask.mask(String(repeating: "ab", count: 40)), result: .accepted,
                             status: 200, reason: nil, apnsId: "6b1d4c2e-913a-4f0b-8e57-2dc4139a7760", tries: 1, at: 1_700_000_000_500),
            PushTargetResult(userId: "u2", deviceId: "d2", token: "…12345678", result: .superseded, status: nil,
                             reason: "a newer state of this device was sent first", apnsId: nil, tries: 0, at: nil),
            PushTargetResult(userId: "u3", deviceId: "d3", token: "…87654321", result: .dead, status: 503, reason: "ServiceUnavailable",
                             apnsId: "x", tries: 15, at: 1_700_000_001_000),
        ]
        let outcome = PushOutcome(job: job, contentTimestamp: variant == 3 ? nil : 1_700_000_000, finishedAt: 1_700_000_001_000, results: results,
                                  sendId: variant == 1 ? nil : Int64(variant + 1) << 32 | 5)
        let fast = PushOutcomeEncoder.encode(outcome)
        #expect(fast == (try MessageCodec.encode(outcome)), "\(String(decoding: fast, as: UTF8.self))")
        #expect(try MessageCodec.decode(PushOutcome.self, from: fast) == outcome)
    }

    @Test("rows written from whole tokens are masked as TokenMask masks them: the same bytes as MessageCodec of the masked outcome")
    func writerMasksWholeTokens() throws {
        let tokens = [String(repeating: "ab", count: 40), "", "short", "123456789", "ééééé\"\\abc", "xxxxxxxxx😀😀", "abcd\u{1}efghi"]
        let job = Self.job()
        var writer = PushOutcomeEncoder.Writer(PushOutcome(job: job, contentTimestamp: 5, finishedAt: 9, results: []), rows: tokens.count)
        var results: [PushTargetResult] = []
        for (index, token) in tokens.enumerated() {
            let at: Int64? = index % 2 == 0 ? Int64.min + Int64(index) : nil
            writer.row(userId: "u\(index)", deviceId: "d\"\(index)", wholeToken: token, result: .accepted, status: index == 3 ? nil : -index,
                       reason: index == 1 ? "r\n" : nil, apnsId: index == 2 ? nil : "a\(index)", tries: Int.max - index, at: at)
            results.append(PushTargetResult(userId: "u\(index)", deviceId: "d\"\(index)", token: TokenMask.mask(token), result: .accepted,
                                            status: index == 3 ? nil : -index, reason: index == 1 ? "r\n" : nil,
                                            apnsId: index == 2 ? nil : "a\(index)", tries: Int.max - index, at: at))
        }
        let expected = try MessageCodec.encode(PushOutcome(job: job, contentTimestamp: 5, finishedAt: 9, results: results))
        let written = writer.finish()
        #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
    }

    @Test("integers are written as String(value) writes them, at the ends of every width")
    func integers() {
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1_700_000_000_123]
        for value in values {
            var out: [UInt8] = []
            JSONBytes.integer(value, &out)
            #expect(out == Array(String(value).utf8))
        }
        var out: [UInt8] = []
        JSONBytes.integer(UInt64.max, &out)
        #expect(out == Array(String(UInt64.max).utf8), "beyond Int64: through the String")
    }

    @Test("a job's trim step travels in its JSON (PushJobEncoder and MessageCodec alike) and into its outcome")
    func trimStepTravels() throws {
        let job = Self.job(trimStep: 2)
        #expect(PushJobEncoder.encode(job) == (try MessageCodec.encode(job)))
        #expect(try MessageCodec.decode(PushJob.self, from: PushJobEncoder.encode(job)).trimStep == 2)
        #expect(PushOutcome(job: job, contentTimestamp: nil, finishedAt: 0, results: []).trimStep == 2)
    }

    @Test("aps.timestamp is read from an encoded payload, never from the content state, and refused when not a number")
    func timestampOfAPayload() throws {
        let state = #"{"aps":{"content-state":{"note":"\"timestamp\":5","x":{"timestamp":9}},"event":"update","timestamp":1733450000}}"#
        #expect(LiveActivityPayload.timestamp(inEncoded: state) == 1_733_450_000)
        #expect(LiveActivityPayload.timestamp(inEncoded: #"{"aps":{"event":"update"}}"#) == nil)
        #expect(LiveActivityPayload.timestamp(inEncoded: #"{"aps":{"timestamp":"soon"}}"#) == nil)
        #expect(LiveActivityPayload.timestamp(inEncoded: #"{"aps":{"timestamp":-5}}"#) == nil)
        #expect(LiveActivityPayload.timestamp(inEncoded: #"{"aps":{"timestamp":99999999999999999999999}}"#) == nil, "no overflow: refused")
        #expect(LiveActivityPayload.timestamp(inEncoded: "") == nil)
    }

    @Test("tokens are shown as their last 8 characters; short ones not at all")
    func tokenMask() {
        #expect(TokenMask.mask("0123456789abcdef0123456789abcdef") == "…89abcdef")
        #expect(TokenMask.mask("abcdefgh") == "…")
        #expect(TokenMask.mask("") == "")
    }

    @Test("ids: 1–128 of A-Z a-z 0-9 . _ : -, never . or ..")
    func identifiers() {
        #expect(Identifier.isValid("u1") && Identifier.isValid("a.b:c_d-e") && Identifier.isValid(String(repeating: "x", count: 128)))
        for bad in ["", ".", "..", "a/b", "%2e%2e", String(repeating: "x", count: 129), "ü", "a b"] {
            #expect(!Identifier.isValid(bad), "\(bad)")
        }
    }
}
