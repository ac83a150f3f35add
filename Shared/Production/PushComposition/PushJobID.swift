import Contracts

/// Every job-id format, in one place. Ids are deterministic: a job produced again after a crash or a
/// repeated request gets the same id, and apns-sender derives the `apns-id` from it and the token, so
/// APNs and the device see one push.
public enum PushJobID {
    /// An event's token job: "eventId:shard:chunk".
    public static func event(eventId: String, shard: Int, chunk: Int) -> String { "\(eventId):\(shard):\(chunk)" }

    /// An event's broadcast job, one per channel: "eventId:bc:env:generation" (a re-created channel is a new generation).
    public static func broadcast(eventId: String, environment: APNsEnvironment, generation: Int) -> String {
        "\(eventId):bc:\(environment.rawValue):\(generation)"
    }

    /// A push-to-start: "start:matchId:userId:deviceId:attempt" (a new attempt only when the row really starts again).
    public static func start(_ device: PushDevice, attempt: Int) -> String {
        "start:\(device.matchId):\(device.userId):\(device.deviceId):\(attempt)"
    }

    /// The end of a rolled-over activity: "rollover:matchId:userId:deviceId:attempt" (the attempt of the new start).
    public static func rolloverEnd(_ device: PushDevice, attempt: Int) -> String {
        "rollover:\(device.matchId):\(device.userId):\(device.deviceId):\(attempt)"
    }

    /// An activity ended by its user or device (unfollow, dismissal, device removed):
    /// "end:matchId:userId:deviceId:reason:first 16 characters of the update token".
    public static func end(_ device: PushDevice, reason: String) -> String {
        "end:\(device.matchId):\(device.userId):\(device.deviceId):\(reason):\(device.token.prefix(16))"
    }

    /// A background push asking the app to end its channel activity: "bgend:matchId:userId:deviceId:reason".
    public static func backgroundEnd(_ device: PushDevice, reason: String) -> String {
        "bgend:\(device.matchId):\(device.userId):\(device.deviceId):\(reason)"
    }
}
