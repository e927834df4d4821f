%% issue 38's code-generating program for BEAM (bench/pending_breakpoint.py):
%% compiles and loads COUNT modules as it runs, each JIT-compiled by BEAM and
%% announced in its perf map or jitdump (+JPperf), and runs each hot.
-module(generate_code).
-export([main/1]).

%% erl -run generate_code main COUNT
main([Count]) ->
    N = list_to_integer(Count),
    Sum = lists:foldl(fun(I, Acc) -> Acc + run(make(I)) end, 0, lists:seq(1, N)),
    io:format("generate_code: ~p modules, sum ~p~n", [N, Sum]),
    halt(0).

make(I) ->
    Name = list_to_atom("generated_" ++ integer_to_list(I)),
    Text = io_lib:format(
             "-module(~s).~n-export([work/1]).~n"
             "work(0) -> 0;~nwork(X) -> (X * ~b rem 13) + work(X - 1).~n", [Name, I]),
    Forms = forms(lists:flatten(Text)),
    {ok, Name, Binary} = compile:forms(Forms, [binary]),
    {module, Name} = code:load_binary(Name, "generated", Binary),
    Name.

forms(Text) ->
    {ok, Tokens, _} = erl_scan:string(Text),
    split(Tokens, []).

split([], []) -> [];
split([{dot, _} = Dot | Rest], Acc) ->
    {ok, Form} = erl_parse:parse_form(lists:reverse([Dot | Acc])),
    [Form | split(Rest, [])];
split([Token | Rest], Acc) -> split(Rest, [Token | Acc]).

run(Module) ->
    lists:sum([Module:work(2000) || _ <- lists:seq(1, 20)]).
