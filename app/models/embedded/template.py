"""The chat template the embedded SmolLM2 runs with: ChatML that shows the model everything that happened.

SmolLM2's own template knows nothing of tools. This one renders each earlier call as JSON
(`{"tool": ..., "arguments": ...}`), each `role: "tool"` result as a `tool` turn, and answers as plain
words, so that in a chat turn the model sees what the tools did before. Values go through `tojson`:
nothing is HTML-escaped. llama.cpp renders it with its own Jinja engine; tests check the rendered text.
"""

CHATML_WITH_TOOLS = """\
{%- for message in messages %}
{%- if message.role == 'assistant' %}
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
