// datecalc MCP server -- date arithmetic in UTC, no external deps.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const SERVER = { name: "datecalc", version: "1.2.0" };
const DAY_MS = 24 * 60 * 60 * 1000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function parseDate(value) {
    const date = new Date(`${value}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
        throw new Error(`Invalid date "${value}" (expected an existing YYYY-MM-DD date)`);
    }
    return date;
}

const dateArg = { type: "string", description: "A date formatted YYYY-MM-DD" };

const tools = {
    days_between: {
        description: "Number of days from one date to another (negative if `to` is earlier)",
        inputSchema: { type: "object", properties: { from: dateArg, to: dateArg }, required: ["from", "to"] },
        run: ({ from, to }) => String((parseDate(to) - parseDate(from)) / DAY_MS),
    },
    add_days: {
        description: "Add (or subtract) a number of days to a date",
        inputSchema: {
            type: "object",
            properties: { date: dateArg, days: { type: "integer" } },
            required: ["date", "days"],
        },
        run: ({ date, days }) => new Date(parseDate(date).getTime() + days * DAY_MS).toISOString().slice(0, 10),
    },
    weekday: {
        description: "Day of the week of a date",
        inputSchema: { type: "object", properties: { date: dateArg }, required: ["date"] },
        run: ({ date }) => WEEKDAYS[parseDate(date).getUTCDay()],
    },
};

// One entry per JSON-RPC method we understand.
const handlers = {
    "tools/list"() {
        return {
            tools: Object.entries(tools).map(([name, tool]) => ({
                name,
                description: tool.description,
                inputSchema: tool.inputSchema,
            })),
        };
    },

    "tools/call"(params) {
        const tool = tools[params.name];
        if (!tool) {
            throw new Error(`Unknown tool: ${params.name}`);
        }
        return { content: [{ type: "text", text: tool.run(params.arguments ?? {}) }] };
    },
};

async function dispatch(message) {
    const isNotification = message.id === undefined;
    const handler = handlers[message.method];

    if (!handler) {
        if (!isNotification) throw Object.assign(new Error(`Unknown method: ${message.method}`), { code: -32000 });
        return;
    }
    try {
        const result = await handler(message.params ?? {});
        if (!isNotification) return result;
    } catch (err) {
        if (!isNotification) throw Object.assign(new Error(err.message), { code: -32000 });
    }
}

const server = new Server(SERVER, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request, extra) => dispatch({ ...request, id: extra.requestId }));
server.setRequestHandler(CallToolRequestSchema, (request, extra) => dispatch({ ...request, id: extra.requestId }));
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
    if (error instanceof SyntaxError) {
        void transport.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
};
await server.connect(transport);
