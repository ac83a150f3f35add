/// A job that exhausted its retries or expired, with the last error. Topic `push.dead`, key jobId.
public struct DeadPush: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.dead

    public var schema: Int
    public var job: PushJob
    /// The targets that never got a final answer.
    public var undelivered: [PushTarget]
    public var lastError: String
    /// Unix epoch milliseconds.
    public var diedAt: Int64

    public init(job: PushJob, undelivered: [PushTarget], lastError: String, diedAt: Int64) {
        self.schema = Self.currentSchema
        self.job = job
        self.undelivered = undelivered
        self.lastError = lastError
        self.diedAt = diedAt
    }
}
