import FlowVocabulary
import Testing

@testable import FlowDescriptor

/// Decodes `text` (YAML) into a descriptor and the decoder's findings.
private func decodeYAML(_ text: String) throws -> (FlowDescriptor, [Diagnostic]) {
    let read = readYAML(text)
    #expect(read.diagnostics.isEmpty, "reading: \(read.diagnostics.map(\.message))")
    let root = try #require(read.root)
    return FlowDecoder.decode(root, file: "flow.yaml")
}

@Suite("Decoding step groups")
struct GroupDecodingTests {
    static let groups = """
        flowrun: 1
        name: groups
        steps: {a: {uses: welcome}, b: {uses: welcome}, c: {uses: welcome}}
        groups:
          outer:
            - a
            - group: inner
              when: {info: x, exists: true}
          inner:
            - step: b
              timeout: 5s
        flows:
          onboard:
            - c
            - {group: outer}
        """

    @Test func aGroupKeepsItsEntriesAndTheirLocations() throws {
        let (descriptor, findings) = try decodeYAML(Self.groups)
        #expect(findings.isEmpty, "\(findings.map(\.message))")
        #expect(descriptor.groups.map(\.name.value) == ["outer", "inner"])
        let outer = try #require(descriptor.group(named: "outer"))
        #expect("\(outer.name.location.line):\(outer.name.location.column)" == "5:3")
        #expect(outer.path.description == "groups.outer")
        #expect(outer.items.count == 2)
        let first = try #require(outer.items[0].entry)
        #expect(first.step.value == "a")
        #expect("\(first.step.location.line):\(first.step.location.column)" == "6:7")
        #expect(first.path.description == "groups.outer[0]")
        let use = try #require(outer.items[1].use)
        #expect(use.group.value == "inner")
        #expect("\(use.group.location.line):\(use.group.location.column)" == "7:14")
        #expect(use.path.description == "groups.outer[1]")
        #expect(use.condition?.summary == "x exists")
        let inner = try #require(descriptor.group(named: "inner")?.items.first?.entry)
        #expect(inner.timeout?.value == .seconds(5))
        #expect(inner.step.location.line == 10)
    }

    @Test func aModeKeepsItsUsesAsWrittenAndListsOnlyItsOwnStepsUntilChecked() throws {
        let (descriptor, _) = try decodeYAML(Self.groups)
        let onboard = try #require(descriptor.flow(for: .onboard))
        #expect(onboard.items.count == 2)
        #expect(onboard.items[1].use?.group.value == "outer")
        #expect(onboard.items[1].use?.location.line == 15)
        #expect(onboard.entries.map(\.step.value) == ["c"])
    }

    @Test func aGroupUseWithAStepOnlyFieldIsRefusedAtTheField() throws {
        let (_, findings) = try decodeYAML(
            """
            flowrun: 1
            name: groups
            groups: {g: [a]}
            flows:
              onboard:
                - group: g
                  retry: 3
            """)
        let finding = try #require(findings.first)
        #expect(findings.count == 1)
        #expect(finding.code == .unknownField)
        #expect(finding.at == "7:7")
        #expect(finding.message.contains("carries only `when`"))
        #expect(finding.hint?.contains("group `g`") == true)
        #expect(finding.path?.description == "flows.onboard[0].retry")
    }

    @Test func anEntryWithBothStepAndGroupIsRefused() throws {
        let (descriptor, findings) = try decodeYAML(
            """
            flowrun: 1
            name: groups
            groups: {g: [a]}
            flows:
              onboard: [{group: g, step: a}]
            """)
        #expect(findings.map(\.code) == [.invalidValue])
        #expect(findings.first?.at == "5:24")
        #expect(descriptor.flow(for: .onboard)?.items.isEmpty == true)
    }

    @Test func badShapesAreLocated() throws {
        let (_, findings) = try decodeYAML(
            """
            flowrun: 1
            name: groups
            groups:
              listless: a
              9bad: [a]
              fine:
                - {group: [x]}
                - {group: g, when: {info: k}}
                - {step: a, group: b}
            flows: {onboard: [a]}
            """)
        let seen = findings.map { "\($0.code.rawValue) \($0.at ?? "-")" }
        #expect(seen.contains("FR202 4:13"), "a group is a sequence: \(seen)")
        #expect(seen.contains("FR203 5:3"), "a group name is an identifier: \(seen)")
        #expect(seen.contains("FR202 7:15"), "a group use names one group: \(seen)")
        #expect(seen.contains("FR201 8:24"), "its `when` is decoded like a step's: \(seen)")
        #expect(seen.contains("FR203 9:8"), "step and group together: \(seen)")
        #expect(findings.count == 5, "\(seen)")
    }

    @Test func groupsMustBeAMapping() throws {
        let (_, findings) = try decodeYAML("flowrun: 1\nname: groups\ngroups: [a]\nflows: {onboard: [a]}\n")
        #expect(findings.map(\.code) == [.wrongType])
        #expect(findings.first?.at == "3:9")
        #expect(findings.first?.message.contains("`groups`") == true)
    }
}
