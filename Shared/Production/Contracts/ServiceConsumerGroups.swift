/// The services' consumer groups and the topics each reads, by their default names: what `sightscreen lag`, the
/// api's `/admin/pipeline` and the operator's match report show. deploy/k8s's KEDA triggers name these groups
/// (scripts/validate-deploy checks it).
public enum ServiceConsumerGroups {
    public static let all: [(group: String, topics: [Topic])] = [
        ("detector", [.fixtures]),
        ("la-coordinator", [.matchEvents]),
        ("la-coordinator-token-invalid", [.tokenInvalid]),
        ("la-coordinator-delivery-record", [.pushOutcomes]),
        ("apns-sender", [.pushJobs]),
    ]
}
