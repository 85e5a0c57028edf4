import { defineExecutorContract } from "../testing/executor_contract.ts";
import { FakeToolSource, text, untilAborted } from "../testing/fake_tool_source.ts";
import { ExecutionService } from "./execution_service.ts";
import { McpExecutor } from "./mcp_executor.ts";
import { ToolLostError } from "./tool_source.ts";

defineExecutorContract("McpExecutor", async () => {
  const echo = (args: Readonly<Record<string, unknown>>) =>
    Promise.resolve(text(String(args.text)));
  const source = new FakeToolSource("fake", {
    echo,
    reviewed: echo,
    broken: () => Promise.resolve(text("boom", true)),
    lost: () => Promise.reject(new ToolLostError("source gone")),
    hang: (_args, signal) => untilAborted(signal),
  });
  const service = new ExecutionService({
    sources: [source],
    barrierFor: (tool) => tool === "reviewed" ? "review" : "record",
  });
  await service.start();
  const executor = await McpExecutor.connect(service);
  return {
    executor,
    close: async () => {
      await executor.close();
      await service.close();
    },
  };
});
