import FlowCatalog

/// Built-in steps the flow format describes and the checker knows, but that this build cannot run: none today.
/// A step the format gains before its code lands goes here; until then a flow that uses one lints, draws and
/// plans, and `flowrun run` refuses to start it with finding FR701.
enum DescribedSteps {
    static let all: [StepSpec] = []
}
