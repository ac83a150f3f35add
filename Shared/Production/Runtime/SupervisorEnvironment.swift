/// The variable through which a supervisor (`sightscreen dev`) tells each child its pid; the
/// child's `ParentWatch` (ServiceKit) stops it when its parent is no longer that pid. One name,
/// read by ServiceKit and written by DevStack.
public enum SupervisorEnvironment {
    public static let parentPIDVariable = "SIGHTSCREEN_PARENT_PID"
}
