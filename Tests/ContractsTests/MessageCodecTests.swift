import Testing
@testable import Contracts

@Suite struct MessageCodecTests {
    static let job = PushJob(
        jobId: "71344:57:3", kind: .liveActivityUpdate, matchId: "71344", stateSeq: 57, priority: 10, expiration: 1_800_000_600,
        relevanceScore: 100, payload: #"{"aps":{"event":"update"}}"#,
        targets: [PushTarget(token: String(repeating: "ab", count: 80), env: .sandbox, userId: "u1", deviceId: "d1")],
        createdAt: 1_800_000_000_000)

    @Test func pushJobRoundTripsWithKebabCaseKind() throws {
        let bytes = try MessageCodec.encode(Self.job)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""kind":"liveactivity-update""#))
        #expect(text.contains(#""schema":2"#))
        #expect(try MessageCodec.decode(PushJob.self, from: bytes) == Self.job)
    }

    @Test("a token job stays schema 2 (the release before broadcast reads it); a broadcast job is 3; both read, 4 refused")
    func pushJobSchemasByShape() throws {
        var broadcast = Self.job
        broadcast.targets = []
        broadcast = PushJob(
            jobId: "71344:57:bc:production:1", kind: .liveActivityUpdate, matchId: "71344", stateSeq: 57, priority: 10,
            expiration: 1_800_000_600, relevanceScore: nil, payload: Self.job.payload, targets: [], createdAt: 1,
            channel: PushChannel(channelId: "QUJD", env: .production, storagePolicy: 0))
        let bytes = try MessageCodec.encode(broadcast)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""channel":{"channelId":"QUJD","env":"production","storagePolicy":0}"#))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""schema":3"#))
        #expect(try MessageCodec.decode(PushJob.self, from: bytes) == broadcast)
        #expect(try MessageCodec.decode(PushJob.self, from: try MessageCodec.encode(Self.job)).channel == nil)
        let future = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: #""schema":3"#, with: #""schema":4"#)
        #expect(throws: MessageDecodeError.unsupportedSchema(topic: "push.jobs", found: 4, expected: 3)) {
            try MessageCodec.decode(PushJob.self, from: Array(future.utf8))
        }
        #expect(PushJob.broadcastKey(matchId: "71344", environment: .sandbox) == "71344:bc:sandbox")
        let lost = TokenInvalid(token: "QUJD", tokenKind: .channel, matchId: "71344", userId: "", deviceId: "", reason: "ChannelNotRegistered",
                                apnsTimestamp: nil)
        #expect(try MessageCodec.decode(TokenInvalid.self, from: try MessageCodec.encode(lost)) == lost)
    }

    @Test func fixtureSnapshotKeepsTheFixtureJSON() throws {
        let fixture = JSONValue.object(["id": .int(71344), "status": .string("2nd Innings"), "note": .null, "runs": .array([.object(["score": .int(187)])])])
        let snapshot = FixtureSnapshot(matchId: "71344", polledAt: 1, fixture: fixture)
        let decoded = try MessageCodec.decode(FixtureSnapshot.self, from: try MessageCodec.encode(snapshot))
        #expect(decoded == snapshot)
        #expect(decoded.fixture["status"] == .string("2nd Innings"))
    }

    @Test func notJSONIsRejectedWithAnExcerpt() {
        #expect(throws: MessageDecodeError.malformedJSON(topic: "push.jobs", reason: "not parseable", excerpt: "{truncated")) {
            try MessageCodec.decode(PushJob.self, from: Array("{truncated".utf8))
        }
        #expect(throws: MessageDecodeError.malformedJSON(topic: "push.jobs", reason: "not a JSON object", excerpt: "[1,2]")) {
            try MessageCodec.decode(PushJob.self, from: Array("[1,2]".utf8))
        }
    }

    @Test func anotherSchemaVersionIsRejected() {
        #expect(throws: MessageDecodeError.unsupportedSchema(topic: "push.token-invalid", found: 2, expected: 1)) {
            try MessageCodec.decode(TokenInvalid.self, from: Array(#"{"schema":2,"token":"ab"}"#.utf8))
        }
        #expect(throws: MessageDecodeError.unsupportedSchema(topic: "push.token-invalid", found: nil, expected: 1)) {
            try MessageCodec.decode(TokenInvalid.self, from: Array(#"{"token":"ab"}"#.utf8))
        }
    }

    @Test func missingOrMistypedFieldsNameThePath() throws {
        var object = String(decoding: try MessageCodec.encode(Self.job), as: UTF8.self)
        object = object.replacingOccurrences(of: #","userId":"u1""#, with: "")
        #expect(throws: MessageDecodeError.invalidField(topic: "push.jobs", path: "targets[0].userId", reason: "missing")) {
            try MessageCodec.decode(PushJob.self, from: Array(object.utf8))
        }
        let wrongType = String(decoding: try MessageCodec.encode(Self.job), as: UTF8.self).replacingOccurrences(of: #""stateSeq":57"#, with: #""stateSeq":"57""#)
        do {
            _ = try MessageCodec.decode(PushJob.self, from: Array(wrongType.utf8))
            Issue.record("a string stateSeq was accepted")
        } catch {
            guard case .invalidField(_, let path, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(path == "stateSeq")
        }
    }

    @Test func absurdSizesAreRejectedBeforeParsing() {
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: MatchBusEvent.maximumBytes + 1)
        #expect(throws: MessageDecodeError.tooLarge(topic: "match.events", bytes: huge.count, limit: MatchBusEvent.maximumBytes)) {
            try MessageCodec.decode(MatchBusEvent.self, from: huge)
        }
        let snapshot = [UInt8](repeating: UInt8(ascii: " "), count: FixtureSnapshot.maximumBytes + 1)
        #expect(throws: MessageDecodeError.tooLarge(topic: "sportmonks.fixtures", bytes: snapshot.count, limit: FixtureSnapshot.maximumBytes)) {
            try MessageCodec.decode(FixtureSnapshot.self, from: snapshot)
        }
    }
}
