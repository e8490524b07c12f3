"""The chat template the embedded SmolLM2 runs with: ChatML that shows the model everything that happened.

SmolLM2's own template knows nothing of tools. This one renders the offered tools in the system
message and their worked examples as earlier turns, each earlier call as the JSON the model itself
writes (`{"tool": ..., "arguments": ...}`), each `role: "tool"` result as a `tool` turn, and answers
as plain words: the two shapes the grammar lets the model reply in (`agent/models/embedded/grammar.py`).
Values go through `tojson`: nothing is HTML-escaped. llama.cpp renders it with its own Jinja
engine; tests check the rendered text.
"""

CHATML_WITH_TOOLS = """\
{%- for message in messages %}
{%- if message.role == 'system' %}
{{- '<|im_start|>system\\n' + message.content }}
{%- if tools %}
{{- '\\n\\nTo use a tool, reply with only {"tool": <name>, "arguments": {...}}; \
otherwise answer in words. Tools:' }}
{%- for tool in tools %}
{{- '\\n- ' + tool.function.name + '(' }}
{%- for name in (tool.function.parameters.properties or {}) %}
{{- ', ' if not loop.first }}{{ name }}
{%- endfor %}
{{- '): ' + tool.function.description }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- for example in examples or [] %}
{{- '<|im_start|>user\\n' + example.request + '<|im_end|>\\n<|im_start|>assistant\\n' \
+ (example.call | tojson) + '<|im_end|>\\n' }}
{%- endfor %}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant\\n' }}
{%- for call in message.tool_calls or [] %}
{{- '{"tool": ' + (call.function.name | tojson) + ', "arguments": ' \
+ (call.function.arguments | tojson) + '}' }}
{%- endfor %}
{{- message.content or '' }}
{{- '<|im_end|>\\n' }}
{%- else %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
