import FastJSON

/// Reads a `PushJob` from its JSON bytes, the same job `MessageCodec.decode(PushJob.self, …)` reads, without
/// `Decodable`'s per-target containers: apns-sender reads a 1,000-target job (≈240 kB) per fan-out step, and the
/// containers cost about three times the parse (issue 38). The pair of `PushJobEncoder`.
///
/// The fast path accepts only what `Decodable` would accept with the same result; anything it does not take (a
/// missing or mistyped field, an unknown kind, a number that does not fit, malformed JSON) goes through
/// `MessageCodec.decode`, so the errors and their texts are exactly `MessageCodec`'s. Tests compare both on
/// encoder output, fixtures and mutated jobs.
public enum PushJobDecoder {
    /// The job in `bytes`.
    /// - Throws: `MessageDecodeError`, as `MessageCodec.decode(PushJob.self, from: bytes)` does.
    public static func decode(_ bytes: [UInt8]) throws(MessageDecodeError) -> PushJob {
        if let job = fastPath(bytes) { return job }
        return try MessageCodec.decode(PushJob.self, from: bytes)
    }

    /// The job when the hand-written read takes `bytes` (a well-formed job of an accepted schema, every field of its
    /// type), else nil: then `MessageCodec` reads it and says what is wrong.
    public static func fastPath(_ bytes: [UInt8]) -> PushJob? {
        guard bytes.count <= PushJob.maximumBytes, let document = try? FastJSONDecoder().document(bytes),
              let job = job(document.root), PushJob.acceptedSchemas.contains(job.schema) else { return nil }
        return job
    }

    /// The job at `root`, or nil when anything differs from what the synthesized `Decodable` reads.
    static func job(_ root: FastJSONValue) -> PushJob? {
        // Members in the encoder's (sorted) order, so each lookup hits the object's hint.
        guard let attempt = root["attempt"]?.integer(Int.self),
              case let ballAt? = optional(root["ballAt"], { $0.integer(Int64.self) }),
              case let channel? = optional(root["channel"], channel),
              let createdAt = root["createdAt"]?.integer(Int64.self),
              let expiration = root["expiration"]?.integer(Int64.self),
              let jobId = root["jobId"]?.string,
              let kind = root["kind"]?.string.flatMap(PushKind.init(rawValue:)),
              case let knownAt? = optional(root["knownAt"], { $0.integer(Int64.self) }),
              let matchId = root["matchId"]?.string,
              let payload = root["payload"]?.string,
              let priority = root["priority"]?.integer(Int.self),
              case let relevanceScore? = optional(root["relevanceScore"], { $0.double }),
              let schema = root["schema"]?.integer(Int.self),
              case let startAttempt? = optional(root["startAttempt"], { $0.integer(Int.self) }),
              let stateSeq = root["stateSeq"]?.integer(Int64.self),
              let targetList = root["targets"], targetList.kind == .array,
              case let trimStep? = optional(root["trimStep"], { $0.integer(Int.self) })
        else { return nil }
        var targets: [PushTarget] = []
        targets.reserveCapacity(targetList.count)
        for element in targetList.elements {
            guard let target = target(element) else { return nil }
            targets.append(target)
        }
        var job = PushJob(
            jobId: jobId, kind: kind, matchId: matchId, stateSeq: stateSeq, startAttempt: startAttempt, priority: priority,
            expiration: expiration, relevanceScore: relevanceScore, payload: payload, targets: targets, createdAt: createdAt,
            attempt: attempt, channel: channel, knownAt: knownAt, ballAt: ballAt, trimStep: trimStep)
        job.schema = schema
        return job
    }

    private static func target(_ value: FastJSONValue) -> PushTarget? {
        guard let deviceId = value["deviceId"]?.string, let env = value["env"].flatMap(environment),
              let token = value["token"]?.string, let userId = value["userId"]?.string else { return nil }
        return PushTarget(token: token, env: env, userId: userId, deviceId: deviceId)
    }

    private static func channel(_ value: FastJSONValue) -> PushChannel? {
        guard let id = value["channelId"]?.string, let env = value["env"].flatMap(environment),
              let storagePolicy = value["storagePolicy"]?.integer(Int.self) else { return nil }
        return PushChannel(channelId: id, env: env, storagePolicy: storagePolicy)
    }

    /// An environment compared by bytes (no String per target).
    private static func environment(_ value: FastJSONValue) -> APNsEnvironment? {
        if value.isString("production") { return .production }
        if value.isString("sandbox") { return .sandbox }
        return nil
    }

    /// An optional member as `decodeIfPresent` reads it: `.some(nil)` when absent or null, `.some(value)` when it
    /// reads, nil (no job) when it is present and does not.
    private static func optional<T>(_ value: FastJSONValue?, _ read: (FastJSONValue) -> T?) -> T?? {
        guard let value, !value.isNull else { return .some(nil) }
        guard let read = read(value) else { return nil }
        return .some(read)
    }
}
