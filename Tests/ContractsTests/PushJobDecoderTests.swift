import Contracts
import Foundation
import Testing

/// `PushJobDecoder` (apns-sender's hand-written read of `push.jobs`) gives exactly what `MessageCodec.decode` gives:
/// the same job for every input it takes, and the same error for every input it does not.
@Suite struct PushJobDecoderTests {
    static let tricky = "q\"\\/\n\u{1}é😀"

    static func jobs() -> [PushJob] {
        let targets = (0..<40).map { index in
            PushTarget(token: String(repeating: "0123456789abcdef", count: 10), env: index % 3 == 0 ? .production : .sandbox,
                       userId: index == 7 ? tricky : "user-\(index)", deviceId: "d\(index)")
        }
        var full = PushJob(
            jobId: "m1:12:3:0", kind: .liveActivityUpdate, matchId: "m1", stateSeq: 12, startAttempt: 3, priority: 10,
            expiration: 1_800_000_900, relevanceScore: 7.25, payload: #"{"aps":{"timestamp":1800000000,"x":"\"/"}}"#,
            targets: targets, createdAt: 1_800_000_000_123, attempt: 2, knownAt: 1_800_000_000_000, ballAt: 1_799_999_990_000,
            trimStep: 1)
        var bare = full
        bare.startAttempt = nil
        bare.relevanceScore = nil
        bare.knownAt = nil
        bare.ballAt = nil
        bare.trimStep = nil
        bare.payload = tricky
        bare.kind = .liveActivityStart
        var empty = bare
        empty.targets = []
        empty.kind = .alert
        let broadcast = PushJob(
            jobId: "m1:bc:sandbox:4", kind: .liveActivityEnd, matchId: "m1", stateSeq: 4, priority: 5, expiration: 0,
            relevanceScore: 100, payload: "{}", targets: [], createdAt: 1, channel: PushChannel(channelId: "dGVz+/dA==", env: .sandbox, storagePolicy: 1))
        full.relevanceScore = 10
        return [full, bare, empty, broadcast]
    }

    /// Decodes both ways; equal jobs, or equal error texts.
    static func agree(_ bytes: [UInt8], _ comment: Comment? = nil) {
        let fast = Result { () throws(MessageDecodeError) in try PushJobDecoder.decode(bytes) }
        let codec = Result { () throws(MessageDecodeError) in try MessageCodec.decode(PushJob.self, from: bytes) }
        switch (fast, codec) {
        case (.success(let a), .success(let b)): #expect(a == b, comment)
        case (.failure(let a), .failure(let b)): #expect(a.description == b.description, comment)
        default: Issue.record("one decoder took it, the other did not: fast \(fast), codec \(codec) \(comment.map { "\($0)" } ?? "")")
        }
    }

    @Test("the encoder's output reads back as the same job, every optional field present or absent, broadcasts too")
    func roundTrip() throws {
        for job in Self.jobs() {
            let decoded = try #require(PushJobDecoder.fastPath(PushJobEncoder.encode(job)), "taken by the hand-written read")
            #expect(decoded == job)
            #expect(decoded.schema == job.schema)
            Self.agree(PushJobEncoder.encode(job))
        }
    }

    @Test("members in another order, nulls for optional fields, escapes and numbers written as 1e1: the same job as Decodable reads")
    func otherSpellings() throws {
        let target = #"{"userId":"u\u0031","token":"ab","env":"produc\u0074ion","deviceId":"d1","extra":[1,{"a":null}]}"#
        let text = #"{"targets":[\#(target)],"schema":2,"priority":1e1,"stateSeq":4.0,"payload":"{}","matchId":"m","kind":"alert","#
            + #""jobId":"j","expiration":5,"createdAt":6,"attempt":0,"relevanceScore":null,"knownAt":null,"ballAt":null,"#
            + #""startAttempt":null,"trimStep":null,"channel":null,"unknown":"ignored"}"#
        let job = try #require(PushJobDecoder.fastPath(Array(text.utf8)), "taken by the hand-written read")
        #expect(job.priority == 10 && job.stateSeq == 4 && job.targets.first?.env == .production && job.targets.first?.userId == "u1")
        Self.agree(Array(text.utf8))
    }

    @Test("every field removed, nulled or given a wrong type: the same answer (job or error) as MessageCodec")
    func mutations() throws {
        let job = Self.jobs()[0]
        let object = try #require(JSONSerialization.jsonObject(with: Data(PushJobEncoder.encode(job))) as? [String: Any])
        let wrongValues: [Any] = [NSNull(), "text", 1.5, -1, Double(Int64.max) * 4, true, [Any](), [String: Any](), 9_999_999_999_999]
        var checked = 0
        for key in object.keys.sorted() {
            var removed = object
            removed[key] = nil
            Self.agree(Array(try JSONSerialization.data(withJSONObject: removed)), "without \(key)")
            for value in wrongValues {
                var changed = object
                changed[key] = value
                Self.agree(Array(try JSONSerialization.data(withJSONObject: changed)), "\(key) = \(value)")
                checked += 1
            }
        }
        var targets = try #require(object["targets"] as? [[String: Any]])
        for key in ["token", "env", "userId", "deviceId"] {
            for value in wrongValues + ["staging"] {
                var target = targets[5]
                target[key] = value
                targets[5] = target
                var changed = object
                changed["targets"] = targets
                Self.agree(Array(try JSONSerialization.data(withJSONObject: changed)), "target \(key) = \(value)")
                checked += 1
            }
        }
        #expect(checked > 150)
    }

    @Test("malformed JSON, another schema, a non-object and an oversized message: MessageCodec's errors")
    func rejected() {
        let good = PushJobEncoder.encode(Self.jobs()[1])
        Self.agree(Array(good.dropLast()), "truncated")
        Self.agree(Array("[]".utf8), "an array")
        Self.agree(Array("".utf8), "empty")
        Self.agree(Array(String(decoding: good, as: UTF8.self).replacingOccurrences(of: #""schema":2"#, with: #""schema":9"#).utf8),
                   "schema 9")
        Self.agree(Array(String(decoding: good, as: UTF8.self).replacingOccurrences(of: #""attempt":0"#, with: #""attempt":0,"attempt":1"#).utf8),
                   "a duplicate key")
        Self.agree([UInt8](repeating: UInt8(ascii: " "), count: PushJob.maximumBytes + 1), "too large")
    }
}
