/// A push that will not be sent as it is, with why. Topic `push.dead`, key jobId. The one record on that topic:
/// a job whose retries ran out or that expired or was refused for good carries the job and its undelivered
/// targets; a message that named a job but did not decode as one (`cause` rejected) carries where it was.
public struct DeadPush: VersionedMessage, Equatable {
    /// 2: `cause`, `jobId` and `source`; `job` optional (schema 1 had only `job`, `undelivered`, `lastError`).
    public static let currentSchema = 2
    public static let topic = Topic.dead

    /// Why the push is dead.
    public enum Cause: String, Codable, Sendable, CaseIterable {
        /// Its retries ran out while APNs kept answering 429/5xx (or not at all): worth re-driving while unexpired.
        case exhausted
        /// Its `apns-expiration` passed before a final answer: APNs would drop it too.
        case expired
        /// APNs (400/403/413) or the sender (an invalid job) refused it for good: a bug to fix first.
        case permanent
        /// The message named a job but did not decode as one; `job` is nil and `source` says where it was.
        case rejected
    }

    /// Where a rejected message was (never its body).
    public struct Source: Codable, Sendable, Equatable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        /// `MessageDecodeError.kind`.
        public var kind: String

        public init(topic: String, partition: Int32, offset: Int64, kind: String) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
            self.kind = kind
        }
    }

    public var schema: Int
    public var cause: Cause
    public var jobId: String
    /// The job as it was sent; nil when it was `rejected`.
    public var job: PushJob?
    /// The targets that never got a final answer.
    public var undelivered: [PushTarget]
    /// The last error (at most 500 characters).
    public var lastError: String
    /// Unix epoch milliseconds.
    public var diedAt: Int64
    /// Set when `rejected`.
    public var source: Source?

    /// A job that died: every target in `undelivered` is without a final answer.
    public init(job: PushJob, undelivered: [PushTarget], cause: Cause, lastError: String, diedAt: Int64) {
        self.init(cause: cause, jobId: job.jobId, undelivered: undelivered, lastError: lastError, diedAt: diedAt, source: nil)
        self.job = job
    }

    /// A message that named job `jobId` but did not decode as a job.
    public static func rejected(jobId: String, source: Source, error: String, diedAt: Int64) -> DeadPush {
        DeadPush(cause: .rejected, jobId: jobId, undelivered: [], lastError: error, diedAt: diedAt, source: source)
    }

    private init(cause: Cause, jobId: String, undelivered: [PushTarget], lastError: String, diedAt: Int64, source: Source?) {
        self.schema = Self.currentSchema
        self.cause = cause
        self.jobId = jobId
        self.job = nil
        self.undelivered = undelivered
        self.lastError = String(lastError.prefix(500))
        self.diedAt = diedAt
        self.source = source
    }
}
